/*
 * Unit tests of widgetd_json.c, compiled and run by scripts/test-pam:
 *   cc -o test_json pam/test_json.c pam/widgetd_json.c && ./test_json
 * Exit status 0 when every case holds; each failure is printed.
 */
#include <stdio.h>
#include <string.h>

#include "widgetd_json.h"

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

/* A password is written as the exact JSON string contents a strict reader decodes back. */
static void escapes(const char *in, size_t len, const char *expected)
{
    char out[256];
    size_t n = wd_json_escape(out, sizeof out, in, len);
    if (expected == NULL) {
        CHECK(n == 0, "refused input of %zu bytes was written as %zu bytes", len, n);
        return;
    }
    CHECK(n == strlen(expected) && memcmp(out, expected, n) == 0, "escape: got \"%.*s\", want \"%s\"", (int)n, out,
          expected);
}

static void escaping_rules(void)
{
    escapes("plain", 5, "plain");
    escapes("a\"b", 3, "a\\\"b");
    escapes("a\\b", 3, "a\\\\b");
    escapes("\\\"", 2, "\\\\\\\"");
    escapes("\b\f\n\r\t", 5, "\\b\\f\\n\\r\\t");
    escapes("\x01\x1f", 2, "\\u0001\\u001f");
    escapes("a\x00" "b", 3, "a\\u0000b"); /* a NUL would end the Varlink message: escaped */
    escapes("\x7f", 1, "\x7f");           /* DEL is allowed in JSON as it is */
    escapes("/", 1, "/");
    escapes("p\xc3\xa4ssw\xc3\xb6rd", 10, "p\xc3\xa4ssw\xc3\xb6rd");   /* ä ö: two bytes */
    escapes("\xe5\xaf\x86\xe7\xa0\x81", 6, "\xe5\xaf\x86\xe7\xa0\x81"); /* 密码: three */
    escapes("\xf0\x9f\x94\x91", 4, "\xf0\x9f\x94\x91");                 /* U+1F511: four */
    escapes("\xf4\x8f\xbf\xbf", 4, "\xf4\x8f\xbf\xbf");                 /* U+10FFFF, the last */
    escapes("\xef\xbf\xbf", 3, "\xef\xbf\xbf");                         /* U+FFFF */
    /* Not UTF-8: never sent, never "repaired" into another password. */
    escapes("", 0, NULL);
    escapes("\xc3", 1, NULL);                  /* truncated */
    escapes("ab\xe5\xaf", 4, NULL);            /* truncated at the end */
    escapes("\xc0\x80", 2, NULL);              /* overlong NUL */
    escapes("\xc1\xbf", 2, NULL);              /* overlong */
    escapes("\xe0\x80\xaf", 3, NULL);          /* overlong '/' */
    escapes("\xf0\x8f\xbf\xbf", 4, NULL);      /* overlong U+FFFF */
    escapes("\xed\xa0\x80", 3, NULL);          /* surrogate U+D800 */
    escapes("\xed\xbf\xbf", 3, NULL);          /* surrogate U+DFFF */
    escapes("\xf4\x90\x80\x80", 4, NULL);      /* U+110000 */
    escapes("\xf5\x80\x80\x80", 4, NULL);
    escapes("\x80", 1, NULL);                  /* a continuation byte first */
    escapes("\xc3\x28", 2, NULL);              /* a bad continuation byte */
    escapes("\xff", 1, NULL);
    escapes("latin1 \xe9t\xe9", 10, NULL);     /* ISO 8859-1 "été" */
}

static void escaping_respects_capacity(void)
{
    char out[8];
    CHECK(wd_json_escape(out, 6, "\x01", 1) == 6, "\\u0001 fits in exactly 6");
    CHECK(wd_json_escape(out, 5, "\x01", 1) == 0, "\\u0001 does not fit in 5");
    CHECK(wd_json_escape(out, 2, "\"", 1) == 2, "\\\" fits in exactly 2");
    CHECK(wd_json_escape(out, 1, "\"", 1) == 0, "\\\" does not fit in 1");
    CHECK(wd_json_escape(out, 3, "abc", 3) == 3, "abc fits in 3");
    CHECK(wd_json_escape(out, 2, "abc", 3) == 0, "abc does not fit in 2");
}

static int parse(const char *text, struct wd_reply *r)
{
    return wd_parse_reply(text, strlen(text), r);
}

static void reading_replies(void)
{
    struct wd_reply r;
    const char *status =
        "{\"parameters\":{\"classes\":[{\"class\":\"complete\",\"keyAvailable\":false}],\"failedAttempts\":3,"
        "\"passcodeInStep\":false,\"passcodeSet\":true,\"retryAfter\":1.5e1,\"settings\":{\"hiddenComplications\":"
        "[\"a/b\"],\"hideSensitiveComplications\":\"off\",\"lockScreenWidgetsAccess\":true,\"passcodeSet\":null},"
        "\"state\":\"locked\",\"warnings\":[\"memoryNotLocked\"]}}";
    CHECK(parse(status, &r) == 0, "a GetStatus reply parses");
    CHECK(r.error[0] == '\0', "no error");
    CHECK(r.passcode_set == 1, "passcodeSet true (the nested one is not it)");
    CHECK(r.passcode_in_step == 0, "passcodeInStep false");
    CHECK(strcmp(r.state, "locked") == 0, "state locked");
    CHECK(r.failed_attempts == 3, "failedAttempts 3");

    CHECK(parse("{\"parameters\":{\"passcodeSet\":false,\"state\":\"unlocked\"}}", &r) == 0, "older reply parses");
    CHECK(r.passcode_set == 0 && r.passcode_in_step == -1, "absent passcodeInStep is -1");

    CHECK(parse(" {\"error\":\"io.widgetd.WrongPasscode\",\"parameters\":{\"failedAttempts\":1}}\n", &r) == 0,
          "an error reply parses");
    CHECK(strcmp(r.error, "io.widgetd.WrongPasscode") == 0 && r.failed_attempts == 1, "its name and parameters");

    CHECK(parse("{}", &r) == 0 && r.error[0] == '\0', "an empty reply is a success");
    CHECK(parse("{\"parameters\":{}}", &r) == 0, "empty parameters");
    CHECK(parse("{\"error\":\"io.widgetd.\\u0057rong\"}", &r) == 0 && r.error[0] != '\0'
          && strcmp(r.error, "io.widgetd.WrongPasscode") != 0, "an escaped error name is an error, not a known one");
    CHECK(parse("{\"error\":7}", &r) == 0 && r.error[0] != '\0', "a non-string error is still an error");
    CHECK(parse("{\"parameters\":{\"passcodeSet\":\"true\"}}", &r) == 0 && r.passcode_set == -1,
          "a string is not a boolean");
    CHECK(parse("{\"parameters\":{\"pa\\u0073scodeSet\":true}}", &r) == 0 && r.passcode_set == -1,
          "an escaped key is not the key");

    /* Not one JSON object: a failure, never a partial success. */
    const char *bad[] = {
        "", "[]", "null", "{", "{\"parameters\":{\"passcodeSet\":true}", "{\"parameters\":{\"passcodeSet\":tru}}",
        "{\"a\":1}{}", "{\"a\" 1}", "{\"a\":1,}", "{\"a\":\"unterminated}", "{\"a\":\"x\\\"}", "{\"a\":[1,2}",
        "{\"a\":\"\x01\"}", "{'a':1}",
        "{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) CHECK(parse(bad[i], &r) < 0, "rejects %s", bad[i]);
}

int main(void)
{
    escaping_rules();
    escaping_respects_capacity();
    reading_replies();
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("test_json: all cases hold\n");
    return 0;
}
