#!/bin/sh
# Sxmo calls this hook when the phone reaches its "lock" state (screen on, input
# locked). Copy it to ~/.config/sxmo/hooks/ (a user hook replaces Sxmo's own of
# the same name, so it runs Sxmo's afterwards) and make it executable.
#
# widgetd locks first, before anything else happens: lock-screen surfaces switch to
# what a locked device may show at once, and the class keys are purged as their
# class says. A failure must not stop Sxmo from locking, so it is only logged.
if ! widgetctl lock >/dev/null 2>&1; then
    logger -t sxmo_hook_lock "widgetctl lock failed (is widgetd running?)" 2>/dev/null || true
fi
exec "${SXMO_DEFAULT_HOOKS:-/usr/share/sxmo/default_hooks}/sxmo_hook_lock.sh" "$@"
