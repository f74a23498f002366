#!/usr/bin/env bash
# The reply parser reads what any process of the user may answer on the socket, as
# root: a brief libFuzzer run (pam/fuzz_reply.c) from the seeds in
# tests/pam/fuzz-corpus, when clang is there (3 s: over a million inputs).
set -euo pipefail
cd "$WIDGETD_PAM_REPO"
if ! command -v clang >/dev/null; then echo "# skipped: C: the reply parser's fuzzer (no clang)"; exit 0; fi
out=$(mktemp -d "$WIDGETD_PAM_TMP/c_fuzz_reply.XXXXXX")
trap 'rm -rf "$out"' EXIT
clang -g -O1 -fsanitize=fuzzer,address,undefined -o "$out/fuzz_reply" pam/fuzz_reply.c pam/widgetd_json.c 2>/dev/null
cp -r tests/pam/fuzz-corpus "$out/corpus"
if "$out/fuzz_reply" -max_total_time=3 -max_len=4096 "$out/corpus" > "$out/fuzz.log" 2>&1; then
    echo "ok - C: the reply parser survives 3 s of libFuzzer (pam/fuzz_reply.c)"
else
    tail -30 "$out/fuzz.log"
    echo "FAIL - C: the reply parser survives 3 s of libFuzzer (pam/fuzz_reply.c)"; exit 1
fi
