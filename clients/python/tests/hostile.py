"""A hostile stand-in for widgetd: a Unix socket in the test's process whose replies
a test writes, to see what the clients do with a server that lies or stalls."""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import threading
from typing import Any, Callable, Dict, List


class Peer:
    """One accepted connection, as the hostile server sees it."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._buffer = bytearray()

    def request(self) -> Dict[str, Any]:
        """The next call the client sent; raises EOFError once it has gone."""
        while b"\0" not in self._buffer:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError
            self._buffer += data
        end = self._buffer.index(b"\0")
        raw = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return json.loads(raw.decode("utf-8"))

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def reply(self, parameters: Dict[str, Any], **envelope: Any) -> None:
        """Sends a well-formed reply."""
        message = dict(envelope, parameters=parameters)
        self.send(json.dumps(message).encode("utf-8") + b"\0")


class HostileServer:
    """Listens on a fresh socket; each connection runs ``serve(peer)`` on a thread of
    its own until it returns, raises, or the client goes away."""

    def __init__(self, serve: Callable[[Peer], None]) -> None:
        self.serve = serve
        self.directory = tempfile.mkdtemp(prefix="widgetd-hostile-")
        self.path = os.path.join(self.directory, "widgetd.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(8)
        self.stopped = threading.Event()
        self.threads: List[threading.Thread] = []
        self.accepting = threading.Thread(target=self._accept, daemon=True)
        self.accepting.start()

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            thread = threading.Thread(target=self._run, args=(sock,), daemon=True)
            self.threads.append(thread)
            thread.start()

    def _run(self, sock: socket.socket) -> None:
        try:
            self.serve(Peer(sock))
        except (EOFError, OSError):
            pass
        finally:
            sock.close()

    def close(self) -> None:
        self.stopped.set()
        try:
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()
        for thread in self.threads:
            thread.join(timeout=10)
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> "HostileServer":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()
