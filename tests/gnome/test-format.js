// Unit tests of the extension's parts that need no shell (scripts/test-gnome runs them;
// alone: gjs -I gnome-shell tests/gnome/test-format.js): the reply parser's bounds, a
// seeded random pass over it, and date formatting.

const {GLib} = imports.gi;
const {parseReply, MAX_REPLY, MAX_DEPTH} = imports.varlink;
const {formatDate, valueText, MAX_TEXT} = imports.format;

let failures = 0;
function check(what, condition) {
    if (!condition) {
        printerr(`FAIL: ${what}`);
        failures++;
    }
}
function throws(what, f, message) {
    try {
        f();
    } catch (e) {
        check(`${what}: "${e.message}" names ${message}`, e.message.includes(message));
        return;
    }
    check(`${what} throws`, false);
}
const bytes = text => new TextEncoder().encode(text);

// The parser: one JSON object, bounded.
check('an object', parseReply(bytes('{"parameters": {"a": 1}}')).parameters.a === 1);
throws('too long', () => parseReply(new Uint8Array(MAX_REPLY + 1).fill(0x20)), 'longer than');
check('exactly the limit is read', (() => {
    const text = `{"x": "${'y'.repeat(MAX_REPLY - 9)}"}`;
    return parseReply(bytes(text)).x.length === MAX_REPLY - 9;
})());
throws('too deep', () => parseReply(bytes(`{"a": ${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}}`)), 'deeper');
check('as deep as allowed', parseReply(bytes(`{"a": ${'['.repeat(MAX_DEPTH - 1)}${']'.repeat(MAX_DEPTH - 1)}}`)) !== null);
check('brackets in strings do not count', parseReply(bytes(`{"a": "${'['.repeat(100)}\\""}`)).a.length === 101);
throws('not UTF-8', () => parseReply(new Uint8Array([0x7b, 0xff, 0x7d])), 'UTF-8');
throws('not JSON', () => parseReply(bytes('{"a": ')), 'not JSON');
throws('an array', () => parseReply(bytes('[1]')), 'not a JSON object');
throws('null', () => parseReply(bytes('null')), 'not a JSON object');

// Random bytes, and random mutations of a real reply: only the parser's own errors.
let seed = 20261206;
const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
};
const sample = bytes('{"parameters": {"presentation": {"widget": "a/b", "mode": "content", "entry": {"fields": {"t": {"value": "x", "role": "title"}}}}}, "continues": true}');
for (let round = 0; round < 5000; round++) {
    const data = round % 2 ? new Uint8Array(Math.floor(random() * 64)).map(() => Math.floor(random() * 256))
        : sample.map(b => random() < 0.05 ? Math.floor(random() * 256) : b);
    try {
        const reply = parseReply(data);
        check('a parsed reply is an object', typeof reply === 'object' && reply !== null && !Array.isArray(reply));
    } catch (e) {
        check(`round ${round}: an Error of the parser's (${e})`, e instanceof Error && /reply/.test(e.message));
    }
}

// Values and dates.
check('long values are cut', valueText('x'.repeat(500)).length === MAX_TEXT);
check('null is a dash', valueText(null) === '—');
const now = GLib.DateTime.new_from_iso8601('2026-12-06T08:00:00Z', null).to_unix();
check('timer', formatDate('2026-12-06T08:04:59Z', 'timer', now) === '04:59');
check('timer counts up after its date', formatDate('2026-12-06T07:59:30Z', 'timer', now) === '00:30');
check('timer with hours', formatDate('2026-12-06T09:00:05Z', 'timer', now) === '1:00:05');
check('relative, future', formatDate('2026-12-06T08:05:00Z', 'relative', now) === 'in 5 min');
check('relative, past', formatDate('2026-12-06T06:00:00Z', 'relative', now) === '2 h ago');
check('relative, now', formatDate('2026-12-06T08:00:20Z', 'relative', now) === 'now');
check('time', /^\d\d:\d\d$/.test(formatDate('2026-12-06T08:05:00Z', 'time', now)));
check('not a date', formatDate('tomorrow', 'time', now) === null);
check('not a string', formatDate(5, 'time', now) === null);

if (failures > 0) {
    printerr(`${failures} failed`);
    imports.system.exit(1);
}
print('test-format: ok');
