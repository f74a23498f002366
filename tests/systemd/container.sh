# The booted container of scripts/test-systemd, for the checks written in shell
# (tests/systemd/checks/*.sh source it): commands inside it, and how a check reports.
# The checks that speak Varlink or read JSON are Python, over container.py.

check=$(basename "$0" .sh)
log() { printf '[%4ds] test-systemd: %s: %s\n' $(($(date +%s) - ${WIDGETD_TEST_T0%.*})) "$check" "$*" >&2; }
fail() {
    log "FAIL: $*"
    exit 1
}
pass() { log "ok: $*"; }

# Runs a command inside the booted container, in all of its namespaces.
inside() {
    nsenter --target "$WIDGETD_TEST_LEADER" --all -- /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 SYSTEMD_PAGER=cat SYSTEMD_COLORS=0 "$@"
}
unit_property() { inside systemctl show -P "$2" "$1"; }
scratch=$WIDGETD_TEST_SCRATCH
sock=$WIDGETD_TEST_SOCKET_DIR/widgetd.sock
