#!/usr/bin/env bash
# The module, as make builds it, exports only the pam_sm_* entry points.
set -euo pipefail
others=$(nm -D --defined-only "$WIDGETD_PAM_MODULE" | awk '$2 == "T" {print $3}' | grep -v '^pam_sm_' || true)
if [ -z "$others" ]; then echo "ok - only the pam_sm_* entry points are exported"
else echo "FAIL - only the pam_sm_* entry points are exported (also: $others)"; exit 1; fi
