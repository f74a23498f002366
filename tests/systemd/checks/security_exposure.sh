#!/usr/bin/env bash
# systemd-analyze security scores the installed widgetd.service at 1.0 or below. It
# reads the unit only: no state to set up or restore.
set -euo pipefail
. "$(dirname "$0")/../container.sh"

inside systemd-analyze security --no-pager widgetd.service > "$scratch/security.log" 2>&1 || true
exposure=$(sed -n 's/.*Overall exposure level for widgetd.service: \([0-9.]*\).*/\1/p' "$scratch/security.log")
[ -n "$exposure" ] || { cat "$scratch/security.log" >&2; fail "systemd-analyze security gave no score"; }
awk -v e="$exposure" 'BEGIN { exit !(e <= 1.0) }' ||
    { grep -E '^✗' "$scratch/security.log" >&2 || true; fail "exposure $exposure is above 1.0"; }
pass "systemd-analyze security widgetd.service: $exposure"
