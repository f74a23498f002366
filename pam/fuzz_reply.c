/*
 * libFuzzer harness for wd_parse_reply: the reply comes from a socket under the
 * user's control (/run/user/UID), and login parses it as root. scripts/test-pam runs
 * it briefly when clang is there:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined pam/fuzz_reply.c pam/widgetd_json.c
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "widgetd_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wd_reply reply;
    char out[64];
    if (wd_parse_reply((const char *)data, size, &reply) == 0) {
        /* What the module reads of a parsed reply is always terminated. */
        if (strlen(reply.error) >= sizeof reply.error || strlen(reply.state) >= sizeof reply.state) __builtin_trap();
    }
    (void)wd_json_escape(out, sizeof out, (const char *)data, size);
    return 0;
}
