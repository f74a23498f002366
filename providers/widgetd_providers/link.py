"""A provider's connection to widgetd, driven by the GLib main loop.

The providers follow their sources through GLib (D-Bus signals, evolution-data-server
views), so their connection to widgetd lives on the same loop: no thread, no blocking
call. The Varlink wire is the Python client's pure ``widgetd._protocol`` (framing,
every call, error classes); this module only moves its bytes.

What it promises its provider:

- ``publish(widget, timeline)`` states what the widget should hold. The latest
  wins; a timeline equal to the one widgetd already holds is not written; writes
  are bounded to ``WRITE_RATE`` a second after a burst of ``WRITE_BURST``.
- widgetd absent, stopping or restarting: the link reconnects with a doubling
  backoff (``backoff_initial`` to ``backoff_max``) and writes every published
  timeline again, since a restarted store may hold an older one.
- Reload requests (``WatchReloads``) and performed actions (``WatchActions``) for the
  provider are handed to its callbacks. A daemon that does not know a stream's
  method is logged once and not asked again until it restarts.
- Errors widgetd answers a write with are logged once per error name (their text
  never holds content); the refused timeline is not retried until it changes.
"""

from __future__ import annotations

import json
import logging
import socket as _socket
import time
from typing import Any, Callable, Dict, List, Optional

from gi.repository import GLib

from widgetd import _protocol as wire
from widgetd._errors import Error

#: Writes per second in the long run, and how many may follow at once after a
#: quiet time (a token bucket): a change after a pause is written at once, a player
#: skipping through a playlist costs a few writes a second, not one per signal.
WRITE_RATE = 4.0
WRITE_BURST = 4.0
BACKOFF_INITIAL = 0.1
BACKOFF_MAX = 10.0


def watch_reloads(provider: str) -> wire.Call:
    """``io.widgetd.Provider.WatchReloads(provider)`` (with ``more``)."""
    return wire.Call("io.widgetd.Provider.WatchReloads", {"provider": provider}, result=lambda p: p)


def watch_actions(provider: str) -> wire.Call:
    """``io.widgetd.Provider.WatchActions(provider)`` (with ``more``): ``id``,
    ``widget``, ``action``, ``isOn``, ``surface``, ``whileLocked``."""
    return wire.Call("io.widgetd.Provider.WatchActions", {"provider": provider}, result=lambda p: p)


class _Connection:
    """One non-blocking socket to widgetd: queued output, NUL-framed input."""

    def __init__(self, path: str, on_message: Callable[[Dict[str, Any]], None], on_closed: Callable[[str], None]) -> None:
        self._on_message = on_message
        self._on_closed = on_closed
        self._reader = wire.MessageReader()
        self._output = bytearray()
        self._in_source = 0
        self._out_source = 0
        self.sock: Optional[_socket.socket] = _socket.socket(
            _socket.AF_UNIX, _socket.SOCK_STREAM | _socket.SOCK_CLOEXEC | _socket.SOCK_NONBLOCK
        )
        try:
            self.sock.connect(path)
        except OSError:
            self.sock.close()
            self.sock = None
            raise
        self._in_source = GLib.unix_fd_add_full(
            GLib.PRIORITY_DEFAULT, self.sock.fileno(), GLib.IOCondition.IN | GLib.IOCondition.HUP | GLib.IOCondition.ERR,
            self._readable,
        )

    def send(self, call: wire.Call, more: bool = False) -> None:
        self._output += wire.encode_call(call, more)
        self._flush()

    def _flush(self) -> None:
        if self.sock is None:
            return
        while self._output:
            try:
                sent = self.sock.send(self._output)
            except BlockingIOError:
                break
            except OSError as error:
                self.close("send: " + (error.strerror or str(error)))
                return
            del self._output[:sent]
        if self._output and not self._out_source:
            self._out_source = GLib.unix_fd_add_full(
                GLib.PRIORITY_DEFAULT, self.sock.fileno(), GLib.IOCondition.OUT, self._writable
            )

    def _writable(self, fd: int, condition: GLib.IOCondition) -> bool:
        self._out_source = 0
        self._flush()
        return False

    def _readable(self, fd: int, condition: GLib.IOCondition) -> bool:
        if self.sock is None:
            return False
        try:
            data = self.sock.recv(65536)
        except BlockingIOError:
            return True
        except OSError as error:
            self._in_source = 0
            self.close(error.strerror or str(error))
            return False
        if not data:
            self._in_source = 0
            self.close("the daemon closed the connection")
            return False
        try:
            self._reader.feed(data)
            while self.sock is not None:
                message = self._reader.next_message()
                if message is None:
                    break
                self._on_message(message)
        except Error as error:
            self._in_source = 0
            self.close(str(error))
            return False
        return self.sock is not None

    def close(self, reason: Optional[str] = None) -> None:
        """Closes the socket; ``reason`` given: tells the owner (a close it did not ask for)."""
        if self.sock is None:
            return
        for source in (self._in_source, self._out_source):
            if source:
                GLib.source_remove(source)
        self._in_source = self._out_source = 0
        self.sock.close()
        self.sock = None
        self._reader.clear()
        if reason is not None:
            self._on_closed(reason)


class Link:
    """What one provider writes to widgetd and hears from it (see the module's text).

    ``on_reload(widget, reason)`` and ``on_action(event)`` run on the loop; an
    ``on_action`` of None asks widgetd for no actions. ``clock`` is monotonic seconds.
    """

    def __init__(
        self,
        socket_path: str,
        provider: str,
        log: logging.Logger,
        on_reload: Optional[Callable[[str, str], None]] = None,
        on_action: Optional[Callable[[Dict[str, Any]], None]] = None,
        write_rate: float = WRITE_RATE,
        write_burst: float = WRITE_BURST,
        backoff_initial: float = BACKOFF_INITIAL,
        backoff_max: float = BACKOFF_MAX,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.socket_path = socket_path
        self.provider = provider
        self.log = log
        self.on_reload = on_reload
        self.on_action = on_action
        self.write_rate = write_rate
        self.write_burst = write_burst
        self._tokens = write_burst
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.clock = clock
        # widget -> the PutTimeline parameters it should hold, and those widgetd holds.
        self._wanted: Dict[str, Dict[str, Any]] = {}
        self._held: Dict[str, str] = {}
        self._calls: Optional[_Connection] = None
        self._streams: List[_Connection] = []
        self._in_flight: Optional[tuple] = None
        self._refilled = clock()
        self._backoff = 0.0
        self._retry_source = 0
        self._flush_source = 0
        self._connected = False
        self._logged: set = set()
        #: Writes answered (successful or not), for a debugger's eye.
        self.writes = 0

    # --- What the provider calls -----------------------------------------------

    def start(self) -> None:
        """Connects (now, or with backoff until widgetd is there)."""
        self._connect()

    def publish(self, widget: str, timeline: Dict[str, Any]) -> None:
        """``widget`` should hold ``timeline`` (``entries``, ``policy``, ``placeholder``,
        ``family``; dates may be aware datetimes)."""
        self._wanted[widget] = timeline
        self._schedule_flush()

    def stop(self) -> None:
        self._connected = False
        for source in (self._retry_source, self._flush_source):
            if source:
                GLib.source_remove(source)
        self._retry_source = self._flush_source = 0
        self._close_all()

    def log_once(self, key: str, level: int, message: str, *args: Any) -> None:
        """Logs ``message`` the first time ``key`` is seen, never again."""
        if key in self._logged:
            return
        self._logged.add(key)
        self.log.log(level, message, *args)

    # --- Connecting ---------------------------------------------------------------

    def _connect(self) -> None:
        self._retry_source = 0
        try:
            streams = [(watch_reloads(self.provider), self._on_reload_message)]
            if self.on_action is not None:
                streams.append((watch_actions(self.provider), self._on_action_message))
            for call, handler in streams:
                self._open_stream(call, handler)
        except OSError as error:
            self._close_all()
            self._retry(error.strerror or str(error))
            return
        self._connected = True
        self.log.info("connected to widgetd at %s", self.socket_path)
        # A restarted widgetd may hold older timelines: write every one again.
        self._held.clear()
        self._schedule_flush()

    def _retry(self, reason: str) -> None:
        self._backoff = min(self.backoff_max, self._backoff * 2 if self._backoff else self.backoff_initial)
        self.log_once("unavailable:" + reason, logging.WARNING,
                      "widgetd is not reachable at %s (%s); retrying with backoff up to %gs",
                      self.socket_path, reason, self.backoff_max)
        self._retry_source = GLib.timeout_add(int(self._backoff * 1000), self._connect)

    def _close_all(self) -> None:
        if self._calls is not None:
            self._calls.close()
            self._calls = None
        for connection in self._streams:
            connection.close()
        self._streams = []
        self._in_flight = None

    def _lost(self, reason: str) -> None:
        if not self._connected:
            return
        self._connected = False
        self.log.warning("lost widgetd (%s); reconnecting", reason)
        self._close_all()
        if self._flush_source:
            GLib.source_remove(self._flush_source)
            self._flush_source = 0
        self._retry(reason)

    def _on_calls_closed(self, reason: str) -> None:
        # An idle call connection is closed by widgetd's IdleTimeoutSec=: open another
        # at the next write. The streams tell a restart; a write cut short is one too.
        self._calls = None
        if self._in_flight is not None:
            self._lost(reason)

    def _on_stream_closed(self, reason: str) -> None:
        self._lost(reason)

    # --- Streams ------------------------------------------------------------------

    def _open_stream(self, call: wire.Call, handler: Callable[[Dict[str, Any]], None]) -> None:
        """Opens a connection for the streaming ``call``; raises OSError if it cannot."""
        connection = _Connection(self.socket_path, lambda message: None, self._on_stream_closed)
        connection._on_message = self._stream_handler(call, handler, connection)
        connection.send(call, more=True)
        self._streams.append(connection)

    def _stream_handler(self, call: wire.Call, handler: Callable[[Dict[str, Any]], None],
                        connection: _Connection) -> Callable[[Dict[str, Any]], None]:
        def handle(message: Dict[str, Any]) -> None:
            try:
                parameters = wire.reply_parameters(message)
            except Error as error:
                # A daemon without this method (or this parameter): say so once, and
                # close the connection (idle, widgetd would close it, which would read as
                # a restart). The other streams, and the next write, still see a restart.
                self.log_once("stream:" + call.method + error.name, logging.WARNING,
                              "widgetd refused %s: %s", call.method.rsplit(".", 1)[1], error.name)
                connection.close()
                if connection in self._streams:
                    self._streams.remove(connection)
                if error.name.endswith(".InvalidParameter") and call.parameters.get("provider"):
                    # A widgetd from before WatchReloads(provider): ask for the caller's own.
                    try:
                        self._open_stream(wire.Call(call.method, {}, result=call.result), handler)
                    except OSError as failure:
                        self._lost(failure.strerror or str(failure))
                return
            self._backoff = 0.0
            handler(parameters)
        return handle

    def _on_reload_message(self, parameters: Dict[str, Any]) -> None:
        widget = parameters.get("widget")
        if isinstance(widget, str) and self.on_reload is not None:
            self.on_reload(widget, str(parameters.get("reason", "")))

    def _on_action_message(self, parameters: Dict[str, Any]) -> None:
        if self.on_action is not None and isinstance(parameters.get("action"), str):
            self.on_action(parameters)

    # --- Writing ------------------------------------------------------------------

    def _schedule_flush(self) -> None:
        if not self._connected or self._in_flight is not None or self._flush_source:
            return
        now = self.clock()
        self._tokens = min(self.write_burst, self._tokens + (now - self._refilled) * self.write_rate)
        self._refilled = now
        wait = (1.0 - self._tokens) / self.write_rate
        if wait > 0:
            self._flush_source = GLib.timeout_add(max(1, int(wait * 1000 + 0.999)), self._flush)
        else:
            self._flush_source = GLib.idle_add(self._flush)

    def _flush(self) -> bool:
        self._flush_source = 0
        if not self._connected or self._in_flight is not None:
            return False
        if self._calls is None:
            try:
                self._calls = _Connection(self.socket_path, self._on_call_reply, self._on_calls_closed)
            except OSError as error:
                self._lost(error.strerror or str(error))
                return False
        for widget, timeline in self._wanted.items():
            encoded = json.dumps(timeline, sort_keys=True, separators=(",", ":"), default=wire.rfc3339)
            if self._held.get(widget) == encoded:
                continue
            call = wire.put_timeline(widget, timeline.get("entries", []), timeline.get("family"),
                                     timeline.get("policy"), timeline.get("placeholder"))
            self.log.debug("writing %s (%d entries)", widget, len(timeline.get("entries", [])))
            self._in_flight = (widget, encoded)
            self._tokens -= 1.0
            self._calls.send(call)
            break
        return False

    def _on_call_reply(self, message: Dict[str, Any]) -> None:
        if self._in_flight is None:
            return
        widget, encoded = self._in_flight
        self._in_flight = None
        self.writes += 1
        try:
            wire.reply_parameters(message)
            self._backoff = 0.0
        except Error as error:
            # Not retried until the timeline changes: the same write would be refused again.
            self.log_once("write:" + widget + error.name, logging.ERROR, "widgetd refused %s's timeline: %s", widget, error)
        self._held[widget] = encoded
        self._schedule_flush()
