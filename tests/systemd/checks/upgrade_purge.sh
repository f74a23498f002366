#!/usr/bin/env bash
# Installing over itself is the upgrade path: the running daemon is restarted on the
# new binary, the socket stays enabled and keeps listening (clients queue in it while
# the daemon restarts). Purging stops both and erases the data and the configuration.
# The package is installed again on the way out, whatever happened.
set -euo pipefail
. "$(dirname "$0")/../container.sh"

reinstall() { inside dpkg -i /root/widgetd.deb > "$scratch/reinstall.log" 2>&1 || { cat "$scratch/reinstall.log" >&2; exit 1; }; }
trap reinstall EXIT
inside dpkg-query -W -f='${db:Status-Status}' widgetd | grep -qx installed || reinstall
inside widgetctl status > /dev/null || fail "widgetctl status (starting the daemon) failed"

old_pid=$(unit_property widgetd.service MainPID)
socket_since=$(unit_property widgetd.socket ActiveEnterTimestampMonotonic)
inside dpkg -i /root/widgetd.deb > "$scratch/dpkg.log" 2>&1 || { cat "$scratch/dpkg.log" >&2; fail "reinstalling failed"; }
[ "$(unit_property widgetd.service MainPID)" != "$old_pid" ] || fail "the upgrade did not restart the running daemon"
[ "$(unit_property widgetd.socket ActiveEnterTimestampMonotonic)" = "$socket_since" ] ||
    fail "the upgrade restarted widgetd.socket"
state=$(unit_property widgetd.service ActiveState)
[ "$state" = active ] || fail "widgetd.service is $state after the upgrade"
[ "$(inside systemctl is-enabled widgetd.socket)" = enabled ] || fail "the upgrade disabled widgetd.socket"
inside dpkg --purge widgetd > "$scratch/dpkg.log" 2>&1 || { cat "$scratch/dpkg.log" >&2; fail "dpkg --purge failed"; }
[ "$(inside systemctl is-active widgetd.socket widgetd.service | sort -u | xargs)" = inactive ] ||
    fail "widgetd still runs after purge"
[ ! -S "$sock" ] || fail "the socket remains after purge"
inside test ! -e /var/lib/widgetd || fail "purge left /var/lib/widgetd (the encrypted data)"
inside test ! -e /etc/widgetd/widgetd.conf || fail "purge left /etc/widgetd/widgetd.conf"
pass "upgrade restarts the daemon, keeps the socket listening and enabled; purge stops it and erases its data"
