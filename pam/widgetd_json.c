/* See widgetd_json.h. */
#include "widgetd_json.h"

#include <string.h>

int wd_utf8_valid(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        size_t n;
        unsigned long cp;
        if (c < 0x80) { i++; continue; }
        else if (c >= 0xC2 && c <= 0xDF) { n = 1; cp = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { n = 2; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { n = 3; cp = c & 0x07; }
        else return 0; /* a continuation byte first, 0xC0/0xC1 (overlong) or 0xF5.. */
        if (len - i <= n) return 0;
        for (size_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000)) return 0; /* overlong */
        if (cp >= 0xD800 && cp <= 0xDFFF) return 0;                     /* surrogate */
        if (cp > 0x10FFFF) return 0;
        i += n + 1;
    }
    return 1;
}

size_t wd_json_escape(char *out, size_t cap, const char *in, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    if (len == 0 || !wd_utf8_valid((const unsigned char *)in, len)) return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        char esc = 0;
        switch (c) {
        case '"': esc = '"'; break;
        case '\\': esc = '\\'; break;
        case '\b': esc = 'b'; break;
        case '\f': esc = 'f'; break;
        case '\n': esc = 'n'; break;
        case '\r': esc = 'r'; break;
        case '\t': esc = 't'; break;
        default: break;
        }
        if (esc) {
            if (cap - o < 2) return 0;
            out[o++] = '\\';
            out[o++] = esc;
        } else if (c < 0x20) {
            if (cap - o < 6) return 0;
            memcpy(out + o, "\\u00", 4);
            out[o + 4] = hex[c >> 4];
            out[o + 5] = hex[c & 0xF];
            o += 6;
        } else {
            if (cap - o < 1) return 0;
            out[o++] = (char)c;
        }
    }
    return o;
}

/* A cursor over the reply text. Every read is bounds-checked: the text comes from a
 * socket that any process of the user could be listening on. */
struct cursor {
    const char *p;
    const char *end;
};

static void skip_space(struct cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

/* A string: sets [*start, *stop) to its raw contents (escapes left as they are). */
static int read_string(struct cursor *c, const char **start, const char **stop)
{
    if (c->p >= c->end || *c->p != '"') return -1;
    c->p++;
    *start = c->p;
    while (c->p < c->end && *c->p != '"') {
        if ((unsigned char)*c->p < 0x20) return -1;
        if (*c->p == '\\') {
            c->p++;
            if (c->p >= c->end) return -1;
        }
        c->p++;
    }
    if (c->p >= c->end) return -1;
    *stop = c->p;
    c->p++;
    return 0;
}

static int skip_value(struct cursor *c, int depth);

static int skip_literal(struct cursor *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0) return -1;
    c->p += n;
    return 0;
}

static int skip_number(struct cursor *c)
{
    const char *start = c->p;
    while (c->p < c->end && strchr("+-0123456789.eE", *c->p) != NULL && *c->p != '\0') c->p++;
    return c->p > start ? 0 : -1;
}

/* Skips an object or array body after its opening bracket. */
static int skip_container(struct cursor *c, int depth, char close, int keyed)
{
    const char *a, *b;
    skip_space(c);
    if (c->p < c->end && *c->p == close) { c->p++; return 0; }
    for (;;) {
        skip_space(c);
        if (keyed) {
            if (read_string(c, &a, &b) < 0) return -1;
            skip_space(c);
            if (c->p >= c->end || *c->p != ':') return -1;
            c->p++;
        }
        if (skip_value(c, depth + 1) < 0) return -1;
        skip_space(c);
        if (c->p >= c->end) return -1;
        if (*c->p == ',') { c->p++; continue; }
        if (*c->p == close) { c->p++; return 0; }
        return -1;
    }
}

static int skip_value(struct cursor *c, int depth)
{
    const char *a, *b;
    if (depth > 32) return -1;
    skip_space(c);
    if (c->p >= c->end) return -1;
    switch (*c->p) {
    case '"': return read_string(c, &a, &b);
    case '{': c->p++; return skip_container(c, depth, '}', 1);
    case '[': c->p++; return skip_container(c, depth, ']', 0);
    case 't': return skip_literal(c, "true");
    case 'f': return skip_literal(c, "false");
    case 'n': return skip_literal(c, "null");
    default: return skip_number(c);
    }
}

static int key_is(const char *start, const char *stop, const char *name)
{
    size_t n = strlen(name);
    return (size_t)(stop - start) == n && memcmp(start, name, n) == 0;
}

/* A boolean member: 1, 0, or -1 for anything else (which is skipped). */
static int read_bool(struct cursor *c)
{
    skip_space(c);
    if (skip_literal(c, "true") == 0) return 1;
    if (skip_literal(c, "false") == 0) return 0;
    return skip_value(c, 1) < 0 ? -2 : -1;
}

/* A string member without escapes that fits `out`; anything else leaves it "". */
static int read_plain_string(struct cursor *c, char *out, size_t cap)
{
    const char *a, *b;
    skip_space(c);
    if (c->p < c->end && *c->p == '"') {
        if (read_string(c, &a, &b) < 0) return -1;
        if ((size_t)(b - a) < cap && memchr(a, '\\', (size_t)(b - a)) == NULL) {
            memcpy(out, a, (size_t)(b - a));
            out[b - a] = '\0';
        }
        return 0;
    }
    return skip_value(c, 1);
}

static int read_integer(struct cursor *c, long *out)
{
    long value = 0;
    const char *start;
    skip_space(c);
    start = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && value < 100000000L) value = value * 10 + (*c->p++ - '0');
    if (c->p > start && (c->p >= c->end || strchr(",} \t\r\n", *c->p) != NULL)) {
        *out = value;
        return 0;
    }
    c->p = start;
    return skip_value(c, 1);
}

static int read_parameters(struct cursor *c, struct wd_reply *r)
{
    const char *a, *b;
    skip_space(c);
    if (c->p >= c->end || *c->p != '{') return skip_value(c, 1);
    c->p++;
    skip_space(c);
    if (c->p < c->end && *c->p == '}') { c->p++; return 0; }
    for (;;) {
        int v = 0;
        skip_space(c);
        if (read_string(c, &a, &b) < 0) return -1;
        skip_space(c);
        if (c->p >= c->end || *c->p != ':') return -1;
        c->p++;
        if (key_is(a, b, "passcodeSet")) { if ((v = read_bool(c)) == -2) return -1; r->passcode_set = v; }
        else if (key_is(a, b, "passcodeInStep")) { if ((v = read_bool(c)) == -2) return -1; r->passcode_in_step = v; }
        else if (key_is(a, b, "state")) { if (read_plain_string(c, r->state, sizeof r->state) < 0) return -1; }
        else if (key_is(a, b, "failedAttempts")) { if (read_integer(c, &r->failed_attempts) < 0) return -1; }
        else if (skip_value(c, 1) < 0) return -1;
        skip_space(c);
        if (c->p >= c->end) return -1;
        if (*c->p == ',') { c->p++; continue; }
        if (*c->p == '}') { c->p++; return 0; }
        return -1;
    }
}

int wd_parse_reply(const char *text, size_t len, struct wd_reply *r)
{
    struct cursor c = { text, text + len };
    const char *a, *b;
    memset(r, 0, sizeof *r);
    r->passcode_set = -1;
    r->passcode_in_step = -1;
    r->failed_attempts = -1;
    skip_space(&c);
    if (c.p >= c.end || *c.p != '{') return -1;
    c.p++;
    skip_space(&c);
    if (c.p < c.end && *c.p == '}') { c.p++; goto done; }
    for (;;) {
        skip_space(&c);
        if (read_string(&c, &a, &b) < 0) return -1;
        skip_space(&c);
        if (c.p >= c.end || *c.p != ':') return -1;
        c.p++;
        if (key_is(a, b, "error")) {
            if (read_plain_string(&c, r->error, sizeof r->error) < 0) return -1;
            if (r->error[0] == '\0') strcpy(r->error, "unreadable"); /* an error it cannot name is still one */
        } else if (key_is(a, b, "parameters")) {
            if (read_parameters(&c, r) < 0) return -1;
        } else if (skip_value(&c, 1) < 0) {
            return -1;
        }
        skip_space(&c);
        if (c.p >= c.end) return -1;
        if (*c.p == ',') { c.p++; continue; }
        if (*c.p == '}') { c.p++; break; }
        return -1;
    }
done:
    skip_space(&c);
    return c.p == c.end ? 0 : -1;
}
