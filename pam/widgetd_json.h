/*
 * The little JSON pam_widgetd.so needs: writing a password as a JSON string, and
 * reading the few members of a widgetd reply it acts on. Pure functions, no I/O, no
 * allocation, so that scripts/test-pam can test them on their own (test_json.c).
 */
#ifndef WIDGETD_JSON_H
#define WIDGETD_JSON_H

#include <stddef.h>

/*
 * Appends `in` (`len` bytes) to `out` as the contents of a JSON string (no quotes):
 * `"` and `\` escaped, control characters (below 0x20) as \uXXXX or their short
 * form, valid UTF-8 copied as it is. Returns the bytes written, or 0 when `in` is
 * not valid UTF-8 (overlong forms, surrogates, beyond U+10FFFF, truncated) or when
 * the result would not fit in `cap`; nothing meaningful is left in `out` then.
 * `len` 0 returns 0 as well: an empty password is never sent.
 */
size_t wd_json_escape(char *out, size_t cap, const char *in, size_t len);

/* Whether `in` is valid UTF-8 (RFC 3629). */
int wd_utf8_valid(const unsigned char *in, size_t len);

/* The members of one Varlink reply that the module reads. */
struct wd_reply {
    /* The error name (e.g. "io.widgetd.WrongPasscode"), or "" for a success. */
    char error[128];
    /* GetStatus: 1 true, 0 false, -1 absent (or not a boolean). */
    int passcode_set;
    int passcode_in_step;
    /* GetStatus: "beforeFirstUnlock", "unlocked", "locked"; "" if absent. */
    char state[32];
    /* GetStatus and WrongPasscode: -1 if absent. */
    long failed_attempts;
};

/*
 * Parses one reply (the bytes before its NUL). Returns 0 on success, -1 if the text
 * is not one JSON object (the reply must then be treated as a failure).
 */
int wd_parse_reply(const char *text, size_t len, struct wd_reply *reply);

#endif
