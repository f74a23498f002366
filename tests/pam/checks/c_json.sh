#!/usr/bin/env bash
# The module's JSON escaping and reply reading, as a C unit test (pam/test_json.c),
# under ASan and UBSan.
set -euo pipefail
cd "$WIDGETD_PAM_REPO"
out=$(mktemp -d "$WIDGETD_PAM_TMP/c_json.XXXXXX")
trap 'rm -rf "$out"' EXIT
cc -std=gnu11 -Wall -Wextra -Werror -g -fsanitize=address,undefined -o "$out/test_json" pam/test_json.c pam/widgetd_json.c
if "$out/test_json"; then echo "ok - C: JSON escaping and reply reading (pam/test_json.c)"
else echo "FAIL - C: JSON escaping and reply reading (pam/test_json.c)"; exit 1; fi
