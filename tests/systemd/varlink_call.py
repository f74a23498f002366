#!/usr/bin/python3
"""One Varlink call over a Unix socket, for scripts/test-systemd.

    varlink_call.py SOCKET METHOD [PARAMETERS_JSON] [--get DOTTED.PATH]...

Prints the reply (or, with --get, each selected value: strings bare, the rest as
JSON) and exits 0; a Varlink error reply prints the error name and parameters on
stdout and exits 2; a connection or protocol failure exits 1. Standard library only,
so that it runs as any user with the system's /usr/bin/python3.
"""
import json
import socket
import sys


def call(path, method, parameters, timeout):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(timeout)
        connection.connect(path)
        request = {"method": method, "parameters": parameters}
        connection.sendall(json.dumps(request).encode() + b"\0")
        buffer = b""
        while b"\0" not in buffer:
            chunk = connection.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed before a reply")
            buffer += chunk
        return json.loads(buffer.split(b"\0", 1)[0])


def select(value, path):
    for key in path.split("."):
        if isinstance(value, list):
            value = value[int(key)]
        elif isinstance(value, dict):
            value = value.get(key)
        else:
            return None
    return value


def main(argv):
    arguments, selections = [], []
    iterator = iter(argv[1:])
    for argument in iterator:
        if argument == "--get":
            selections.append(next(iterator))
        else:
            arguments.append(argument)
    if len(arguments) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 64
    path, method = arguments[0], arguments[1]
    parameters = json.loads(arguments[2]) if len(arguments) == 3 else {}
    try:
        reply = call(path, method, parameters, timeout=60)
    except (OSError, ValueError) as error:
        print(f"varlink_call: {method}: {error}", file=sys.stderr)
        return 1
    if "error" in reply:
        print(json.dumps({"error": reply["error"], "parameters": reply.get("parameters", {})}))
        return 2
    if not selections:
        print(json.dumps(reply.get("parameters", {})))
    for selection in selections:
        value = select(reply.get("parameters", {}), selection)
        print(value if isinstance(value, str) else json.dumps(value))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
