#!/usr/bin/env bash
# The stack the shipped profile makes (pam-auth-update --enable widgetd, which the
# harness ran on a copy of this host's PAM configuration): auth reaches pam_widgetd.so
# only past pam_unix's [success=1 default=ignore] and requisite pam_deny.so, and its
# session part comes after pam_systemd.
set -euo pipefail
stack=$(cat "$WIDGETD_PAM_STACK")
failures=0
if [ "$(grep -E '^auth' <<<"$stack" | grep -A9 'requisite[[:space:]]*pam_deny.so' | grep -c pam_widgetd.so)" = 1 ]; then
    echo "ok - pam-auth-update: auth runs the module only past requisite pam_deny.so"
else echo "FAIL - pam-auth-update: auth runs the module only past requisite pam_deny.so"; failures=1; fi
if grep '^session' <<<"$stack" | tail -1 | grep -q pam_widgetd.so; then
    echo "ok - pam-auth-update: the session part comes after pam_systemd"
else echo "FAIL - pam-auth-update: the session part comes after pam_systemd"; failures=1; fi
exit $failures
