#!/bin/sh
# Sxmo calls this hook when the screen goes off, which it may do straight from the
# unlocked state (power button): lock widgetd here too. Copy it beside
# sxmo_hook_lock.sh in ~/.config/sxmo/hooks/.
if ! widgetctl lock >/dev/null 2>&1; then
    logger -t sxmo_hook_screenoff "widgetctl lock failed (is widgetd running?)" 2>/dev/null || true
fi
exec "${SXMO_DEFAULT_HOOKS:-/usr/share/sxmo/default_hooks}/sxmo_hook_screenoff.sh" "$@"
