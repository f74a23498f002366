// widgetd's Varlink protocol from GNOME Shell: NUL-terminated JSON over a Unix socket,
// GIO async throughout. Nothing here blocks the shell's main loop: the connection is
// made with Gio.SocketClient.connect_async, every read and write is asynchronous, and
// a reply is bounded (MAX_REPLY bytes, MAX_DEPTH levels of nesting, valid UTF-8,
// exactly one JSON object) before JSON.parse sees it.
//
// A listener on the socket that is neither the user nor root is refused (the peer's
// credentials, SO_PEERCRED through Gio.Socket.get_credentials): a socket path in a
// directory another user could write to must not be able to feed the lock screen.

/* exported Connection, parseReply, MAX_REPLY, MAX_DEPTH */

const {Gio, GLib} = imports.gi;

var MAX_REPLY = 64 * 1024;
var MAX_DEPTH = 32;
const CHUNK = 16 * 1024;

const decoder = new TextDecoder('utf-8', {fatal: true});
const encoder = new TextEncoder();

// The deepest nesting of arrays and objects in `text`, outside strings, up to `limit`
// (then false): SpiderMonkey's JSON.parse recurses, and a hostile reply must not make it.
function withinDepth(text, limit) {
    let depth = 0;
    let inString = false;
    let escaped = false;
    for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c === 0x5c)
                escaped = true;
            else if (c === 0x22)
                inString = false;
        } else if (c === 0x22) {
            inString = true;
        } else if (c === 0x5b || c === 0x7b) {
            if (++depth > limit)
                return false;
        } else if (c === 0x5d || c === 0x7d) {
            depth--;
        }
    }
    return true;
}

// One reply (without its NUL) as an object; throws an Error naming what is wrong (never
// the content).
function parseReply(bytes) {
    if (bytes.length > MAX_REPLY)
        throw new Error(`reply longer than ${MAX_REPLY} bytes`);
    let text;
    try {
        text = decoder.decode(bytes);
    } catch (e) {
        throw new Error('reply is not UTF-8');
    }
    if (!withinDepth(text, MAX_DEPTH))
        throw new Error(`reply nested deeper than ${MAX_DEPTH}`);
    let reply;
    try {
        reply = JSON.parse(text);
    } catch (e) {
        throw new Error('reply is not JSON');
    }
    if (reply === null || typeof reply !== 'object' || Array.isArray(reply))
        throw new Error('reply is not a JSON object');
    return reply;
}

function ownUid() {
    return new Gio.Credentials().get_unix_user();
}

// A connection to widgetd. Calls are answered in order (Varlink); a call made with
// `more` keeps receiving replies until one comes without "continues". `onClosed(why)` is
// called once, when the connection fails or is closed by the peer (not by close()).
var Connection = class Connection {
    constructor(path, onClosed) {
        this._path = path;
        this._onClosed = onClosed;
        this._cancellable = new Gio.Cancellable();
        this._pending = [];
        this._queued = [];
        this._buffer = new Uint8Array(0);
        this._connection = null;
        this._closed = false;
        this._writing = false;
    }

    // Connects; `callback(error)` with null on success.
    open(callback) {
        const client = new Gio.SocketClient();
        const address = Gio.UnixSocketAddress.new(this._path);
        client.connect_async(address, this._cancellable, (source, result) => {
            if (this._closed)
                return;
            try {
                this._connection = source.connect_finish(result);
                const peer = this._connection.get_socket().get_credentials().get_unix_user();
                if (peer !== 0 && peer !== ownUid())
                    throw new Error(`the socket's listener is uid ${peer}, neither this user nor root`);
            } catch (e) {
                this._fail(e.message, false);
                callback(e);
                return;
            }
            this._read();
            this._flush();
            callback(null);
        });
    }

    // Sends a call; `onReply(error, parameters, continues)`: error is null or
    // {error: name, parameters}, or {error: 'closed'} when the connection went away.
    call(method, parameters, more, onReply) {
        if (this._closed) {
            onReply({error: 'closed', parameters: {}}, null, false);
            return;
        }
        const message = {method, parameters: parameters || {}};
        if (more)
            message.more = true;
        const bytes = encoder.encode(JSON.stringify(message));
        const framed = new Uint8Array(bytes.length + 1);
        framed.set(bytes);
        this._pending.push(onReply);
        this._queued.push(framed);
        if (this._connection)
            this._flush();
    }

    close() {
        if (this._closed)
            return;
        this._closed = true;
        this._cancellable.cancel();
        this._drop();
    }

    _drop() {
        const pending = this._pending;
        this._pending = [];
        this._queued = [];
        if (this._connection) {
            this._connection.close_async(GLib.PRIORITY_DEFAULT, null, (c, r) => {
                try {
                    c.close_finish(r);
                } catch (e) {}
            });
            this._connection = null;
        }
        for (const onReply of pending) {
            try {
                onReply({error: 'closed', parameters: {}}, null, false);
            } catch (e) {
                logError(e, 'widgetd');
            }
        }
    }

    _fail(why, notify = true) {
        if (this._closed)
            return;
        this._closed = true;
        this._cancellable.cancel();
        this._drop();
        if (notify && this._onClosed)
            this._onClosed(why);
    }

    _flush() {
        if (this._writing || this._queued.length === 0 || !this._connection)
            return;
        this._writing = true;
        const data = this._queued.shift();
        const stream = this._connection.get_output_stream();
        const write = chunk => {
            stream.write_bytes_async(new GLib.Bytes(chunk), GLib.PRIORITY_DEFAULT, this._cancellable, (s, r) => {
                let written;
                try {
                    written = s.write_bytes_finish(r);
                } catch (e) {
                    this._fail(`write: ${e.message}`);
                    return;
                }
                if (written < chunk.length) {
                    write(chunk.subarray(written));
                    return;
                }
                this._writing = false;
                this._flush();
            });
        };
        write(data);
    }

    _read() {
        const stream = this._connection.get_input_stream();
        stream.read_bytes_async(CHUNK, GLib.PRIORITY_DEFAULT, this._cancellable, (s, r) => {
            let chunk;
            try {
                chunk = s.read_bytes_finish(r).toArray();
            } catch (e) {
                this._fail(`read: ${e.message}`);
                return;
            }
            if (chunk.length === 0) {
                this._fail('widgetd closed the connection');
                return;
            }
            const merged = new Uint8Array(this._buffer.length + chunk.length);
            merged.set(this._buffer);
            merged.set(chunk, this._buffer.length);
            this._buffer = merged;
            if (!this._dispatch())
                return;
            if (this._buffer.length > MAX_REPLY) {
                this._fail(`reply longer than ${MAX_REPLY} bytes`);
                return;
            }
            this._read();
        });
    }

    // Hands each complete reply to its call; false once the connection is gone.
    _dispatch() {
        let end;
        while (!this._closed && (end = this._buffer.indexOf(0)) >= 0) {
            const message = this._buffer.subarray(0, end);
            this._buffer = this._buffer.slice(end + 1);
            let reply;
            try {
                reply = parseReply(message);
            } catch (e) {
                this._fail(e.message);
                return false;
            }
            const onReply = this._pending[0];
            if (!onReply) {
                this._fail('a reply to no call');
                return false;
            }
            const continues = reply.continues === true && !reply.error;
            if (!continues)
                this._pending.shift();
            const parameters = reply.parameters && typeof reply.parameters === 'object' ? reply.parameters : {};
            try {
                if (typeof reply.error === 'string')
                    onReply({error: reply.error, parameters}, null, false);
                else
                    onReply(null, parameters, continues);
            } catch (e) {
                logError(e, 'widgetd');
            }
        }
        return !this._closed;
    }
};
