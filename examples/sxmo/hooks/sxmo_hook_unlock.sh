#!/bin/sh
# Sxmo calls this hook when the phone becomes unlocked again. Copy it beside
# sxmo_hook_lock.sh in ~/.config/sxmo/hooks/.
#
# Sxmo's own unlock is a gesture, not a proof of who holds the phone, so it releases
# no widgetd key by itself: widgetd needs its passcode. If widgetd is still locked
# (pam_widgetd.so behind a password locker such as swaylock unlocks it on its own),
# widgetctl asks for the passcode in a terminal, without echo; it never takes one
# from the command line. Sxmo's unlock goes on meanwhile.
if ! widgetctl --json status 2>/dev/null | grep -q '"state":"unlocked"'; then
    sxmo_terminal.sh widgetctl unlock &
fi
exec "${SXMO_DEFAULT_HOOKS:-/usr/share/sxmo/default_hooks}/sxmo_hook_unlock.sh" "$@"
