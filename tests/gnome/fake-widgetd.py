#!/usr/bin/python3
"""A Varlink server that is not widgetd, for scripts/test-gnome: fake-widgetd.py PATH MODE.

It lists one widget, com.example.bad/card, and answers its Watch as MODE says:
"malformed" (nested 1,000 levels deep), "endless" (256 KiB with no end), or "good" (a
valid presentation whose value is "intruder": run as another user, the extension must
refuse the socket before reading it)."""

import json
import os
import socket
import sys
import threading

PATH, MODE = sys.argv[1], sys.argv[2]
WIDGET = {"widget": "com.example.bad/card", "provider": "com.example.bad", "kind": "card", "class": "none",
          "generation": 1}
PRESENTATION = {"widget": WIDGET["widget"], "surface": "lockScreen", "mode": "content", "reasons": [],
                "luminanceReduced": False, "stale": False,
                "entry": {"fields": {"who": {"value": "intruder"}}}}
WATCH = {
    "malformed": b'{"parameters": ' + b"[" * 1000 + b"]" * 1000 + b"}\0",
    "endless": b'{"parameters": "' + b"x" * (256 * 1024),
    "good": json.dumps({"parameters": {"presentation": PRESENTATION}, "continues": True}).encode() + b"\0",
}[MODE]


def serve(connection):
    buffer = b""
    with connection:
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                return
            buffer += chunk
            while b"\0" in buffer:
                message, buffer = buffer.split(b"\0", 1)
                method = json.loads(message)["method"]
                try:
                    if method.endswith("ListWidgets"):
                        connection.sendall(json.dumps({"parameters": {"widgets": [WIDGET]}}).encode() + b"\0")
                    elif method.endswith("WatchWidgets"):
                        pass
                    else:
                        connection.sendall(WATCH)
                except OSError:
                    return


def main():
    if os.path.exists(PATH):
        os.unlink(PATH)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(PATH)
    os.chmod(PATH, 0o777)
    server.listen(8)
    print("ready", flush=True)
    while True:
        connection, _ = server.accept()
        threading.Thread(target=serve, args=(connection,), daemon=True).start()


if __name__ == "__main__":
    main()
