"""The asyncio client: :class:`widgetd.Client`'s methods as coroutines, its streams
as async iterators (DESIGN §10).

::

    async with widgetd.aio.Client() as c:
        print(await c.get_presentation("com.example.weather/forecast", "lockScreen"))
        async with c.watch("com.example.weather/forecast", "lockScreen") as stream:
            async for presentation in stream:
                ...

It uses the event loop's socket operations on a non-blocking Unix socket
(``loop.sock_sendall`` sends straight from the message buffer, which is then
zeroed; a stream transport would keep copies of its own).
"""

from __future__ import annotations

import asyncio
import inspect
import socket as _socket
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from . import _protocol as wire
from . import _provider
from ._errors import DaemonUnavailable, PermissionDenied, TryAgainLater
from ._protocol import Passcode
from ._socket_location import resolve_socket

__all__ = ["Client", "Provider", "Stream"]


async def _connect(path: str) -> _socket.socket:
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM | _socket.SOCK_CLOEXEC)
    sock.setblocking(False)
    try:
        await asyncio.get_running_loop().sock_connect(sock, path)
    except PermissionError as error:
        sock.close()
        raise PermissionDenied("widgetd.SocketAccessDenied", {"socket": path, "reason": error.strerror}) from None
    except OSError as error:
        sock.close()
        raise DaemonUnavailable(None, {"socket": path, "reason": error.strerror or str(error)}) from None
    except BaseException:
        sock.close()
        raise
    return sock


class _Connection:
    """One non-blocking socket to widgetd."""

    def __init__(self, path: str, sock: _socket.socket) -> None:
        self.path = path
        self.sock: Optional[_socket.socket] = sock
        self.reader = wire.MessageReader()

    @classmethod
    async def open(cls, path: str) -> "_Connection":
        return cls(path, await _connect(path))

    def _unavailable(self, reason: str) -> DaemonUnavailable:
        self.close()
        return DaemonUnavailable(None, {"socket": self.path, "reason": reason})

    async def send(self, call: wire.Call, more: bool = False) -> None:
        message = wire.encode_call(call, more)
        self.reader.limit = call.max_reply_bytes
        try:
            if self.sock is None:
                raise self._unavailable("the connection is closed")
            await asyncio.get_running_loop().sock_sendall(self.sock, message)
        except OSError as error:
            raise self._unavailable(error.strerror or str(error)) from None
        finally:
            wire.zero(message)
            for secret in wire.secrets_of(call):
                wire.zero(secret)

    async def receive(self) -> Dict[str, Any]:
        loop = asyncio.get_running_loop()
        while True:
            try:
                message = self.reader.next_message()
            except BaseException:
                self.close()
                raise
            if message is not None:
                return message
            if self.sock is None:
                raise self._unavailable("the connection is closed")
            try:
                data = await loop.sock_recv(self.sock, 65536)
            except OSError as error:
                raise self._unavailable(error.strerror or str(error)) from None
            if not data:
                raise self._unavailable("the daemon closed the connection")
            try:
                self.reader.feed(data)
            except BaseException:
                self.close()
                raise

    def closed_by_peer(self) -> bool:
        """Whether widgetd has closed this idle connection (its IdleTimeoutSec=)."""
        if self.sock is None:
            return True
        try:
            return self.sock.recv(1, _socket.MSG_PEEK) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.close()
            finally:
                self.sock = None
        self.reader.clear()


class Stream:
    """The replies of a streaming call, as an async iterator.

    The connection opens at the first ``__anext__``; :meth:`aclose` (or leaving
    an ``async with`` block, or cancelling the task that waits) closes it, and
    widgetd ends the stream. Errors are raised from the iteration, a daemon that
    stops or restarts as :class:`widgetd.DaemonUnavailable`.
    """

    def __init__(self, path: str, call: wire.Call) -> None:
        self._path = path
        self._call = call
        self._connection: Optional[_Connection] = None
        self._finished = False
        self._started: Optional[asyncio.Event] = None

    @property
    def started(self) -> asyncio.Event:
        """Set once the call is sent (the stream is subscribed): a provider writes its
        first timelines after it. Made on first use, on the running loop."""
        if self._started is None:
            self._started = asyncio.Event()
        return self._started

    def __aiter__(self) -> "Stream":
        return self

    async def __anext__(self) -> Any:
        if self._finished:
            raise StopAsyncIteration
        try:
            if self._connection is None:
                self._connection = await _Connection.open(self._path)
                await self._connection.send(self._call, more=True)
                self.started.set()
            message = await self._connection.receive()
            result = wire.decode_reply(self._call, message)
        except BaseException:
            # An error, a closed daemon, or cancellation: the stream is over.
            self._close()
            raise
        if not message.get("continues"):
            self._close()
        return result

    def _close(self) -> None:
        self._finished = True
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    async def aclose(self) -> None:
        """Ends the stream: closes its connection."""
        self._close()

    async def __aenter__(self) -> "Stream":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        self._close()

    def __del__(self) -> None:
        self._close()


class Client:
    """The asyncio twin of :class:`widgetd.Client`: the same methods, as coroutines;
    :meth:`watch`, :meth:`watch_reloads` and :meth:`monitor` return async iterators.

    ``socket`` as for :class:`widgetd.Client`; ``timeout`` (seconds, None: wait)
    bounds each call as a whole (``asyncio.TimeoutError``), not streams. Calls from
    several tasks take turns on one connection; a call that is cancelled or times
    out closes it (its reply would come out of step), and the next call opens a new
    one.
    """

    def __init__(self, socket: Optional[str] = None, timeout: Optional[float] = None) -> None:
        self.socket_path: str = resolve_socket(socket)
        self.timeout = timeout
        self._connection: Optional[_Connection] = None
        self._lock: Optional[asyncio.Lock] = None

    async def __aenter__(self) -> "Client":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    async def close(self) -> None:
        """Closes the connection (streams have their own and stay open)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    async def _run(self, call: wire.Call) -> Any:
        # Made here, not in __init__: on Python 3.9 a Lock binds to the loop that
        # is current when it is created.
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            try:
                message = await asyncio.wait_for(self._exchange(call), self.timeout)
            except BaseException:
                for secret in wire.secrets_of(call):
                    wire.zero(secret)
                if self._connection is not None:
                    self._connection.close()
                    self._connection = None
                raise
        return wire.decode_reply(call, message)

    async def _exchange(self, call: wire.Call) -> Dict[str, Any]:
        if self._connection is None or self._connection.closed_by_peer():
            if self._connection is not None:
                self._connection.close()
            self._connection = await _Connection.open(self.socket_path)
        await self._connection.send(call)
        return await self._connection.receive()

    # --- io.widgetd.Device -------------------------------------------------------

    async def status(self) -> Dict[str, Any]:
        """As :meth:`widgetd.Client.status`."""
        return await self._run(wire.status())

    async def unlock(self, passcode: Passcode) -> None:
        """As :meth:`widgetd.Client.unlock`, with the same handling of the passcode:
        copied into a bytearray, zeroed once sent; a ``str`` you pass cannot be."""
        await self._run(wire.unlock(wire.passcode_buffer(passcode)))

    async def lock(self) -> None:
        """As :meth:`widgetd.Client.lock`."""
        await self._run(wire.lock())

    async def set_passcode(self, current: Optional[Passcode] = None, new: Optional[Passcode] = None) -> None:
        """As :meth:`widgetd.Client.set_passcode`."""
        await self._run(
            wire.set_passcode(
                wire.passcode_buffer(current) if current is not None else None,
                wire.passcode_buffer(new) if new is not None else None,
            )
        )

    async def settings(self) -> Dict[str, Any]:
        """As :meth:`widgetd.Client.settings`."""
        return await self._run(wire.settings())

    async def set_settings(
        self,
        lock_screen_widgets_access: Optional[bool] = None,
        hide_sensitive_complications: Optional[str] = None,
        hidden_complications: Optional[Sequence[str]] = None,
        hidden_lock_screen_widgets: Optional[Sequence[str]] = None,
    ) -> Dict[str, Any]:
        """As :meth:`widgetd.Client.set_settings`."""
        return await self._run(
            wire.set_settings(
                lock_screen_widgets_access, hide_sensitive_complications, hidden_complications, hidden_lock_screen_widgets
            )
        )

    def monitor(self) -> Stream:
        """As :meth:`widgetd.Client.monitor`, an async iterator."""
        return Stream(self.socket_path, wire.monitor())

    # --- io.widgetd.Provider -----------------------------------------------------

    async def put_timeline(
        self,
        widget: str,
        entries: Iterable[Mapping[str, Any]],
        family: Optional[str] = None,
        policy: Any = None,
        placeholder: Optional[Mapping[str, Any]] = None,
    ) -> int:
        """As :meth:`widgetd.Client.put_timeline`."""
        return await self._run(wire.put_timeline(widget, entries, family, policy, placeholder))

    async def append_entries(self, widget: str, entries: Iterable[Mapping[str, Any]]) -> int:
        """As :meth:`widgetd.Client.append_entries`."""
        return await self._run(wire.append_entries(widget, entries))

    async def get_timeline(self, widget: str) -> Dict[str, Any]:
        """As :meth:`widgetd.Client.get_timeline`."""
        return await self._run(wire.get_timeline(widget))

    async def close_timeline(self, widget: str) -> None:
        """As :meth:`widgetd.Client.close_timeline`."""
        await self._run(wire.close_timeline(widget))

    async def delete_timeline(self, widget: str) -> None:
        """As :meth:`widgetd.Client.delete_timeline`."""
        await self._run(wire.delete_timeline(widget))

    def watch_reloads(self, provider: Optional[str] = None) -> Stream:
        """As :meth:`widgetd.Client.watch_reloads`, an async iterator."""
        return Stream(self.socket_path, wire.watch_reloads(provider))

    def watch_actions(self, provider: Optional[str] = None) -> Stream:
        """As :meth:`widgetd.Client.watch_actions`, an async iterator."""
        return Stream(self.socket_path, wire.watch_actions(provider))

    # --- io.widgetd.Host ---------------------------------------------------------

    async def list_widgets(
        self, provider: Optional[str] = None, max_widgets: int = wire.MAX_LIST_WIDGETS
    ) -> List[Dict[str, Any]]:
        """As :meth:`widgetd.Client.list_widgets`: at most ``max_widgets``."""
        listing = wire.WidgetList(provider, max_widgets)
        while listing.take(await self._run(listing.next_call())):
            pass
        return listing.widgets

    async def get_presentation(self, widget: str, surface: str) -> Dict[str, Any]:
        """As :meth:`widgetd.Client.get_presentation`."""
        return await self._run(wire.get_presentation(widget, surface))

    async def reload_timelines(self, provider: Optional[str] = None, kind: Optional[str] = None) -> None:
        """As :meth:`widgetd.Client.reload_timelines`."""
        await self._run(wire.reload_timelines(provider, kind))

    def watch(self, widget: str, surface: str) -> Stream:
        """As :meth:`widgetd.Client.watch`, an async iterator."""
        return Stream(self.socket_path, wire.watch(widget, surface))

    async def perform_action(self, widget: str, surface: str, action: str, wait: bool = False) -> str:
        """As :meth:`widgetd.Client.perform_action`: with ``wait``, a held action's
        final outcome, followed on a connection of its own."""
        call = wire.perform_action(widget, surface, action)
        if not wait:
            return await self._run(call)
        outcome = "expired"
        async with Stream(self.socket_path, call) as replies:
            async for outcome in replies:
                pass
        return outcome

    def watch_widgets(self) -> Stream:
        """As :meth:`widgetd.Client.watch_widgets`, an async iterator."""
        return Stream(self.socket_path, wire.watch_widgets())


class Provider:
    """The asyncio twin of :class:`widgetd.Provider`: the same parameters and rules;
    ``timeline`` may be a plain function or a coroutine function, :meth:`run` is a
    coroutine (cancelling it, or :meth:`stop`, ends it), :meth:`update` and
    :meth:`stop` are called from the event loop's thread.

    ::

        async def forecast(widget, reason):
            return {"entries": [...], "policy": "never"}

        await widgetd.aio.Provider("com.example.weather", ["com.example.weather/forecast"],
                                   forecast, every=600).run()
    """

    def __init__(
        self,
        provider: str,
        widgets: Iterable[str],
        timeline: Any,
        *,
        socket: Optional[str] = None,
        every: Optional[float] = None,
        backoff: Tuple[float, float] = _provider.DEFAULT_BACKOFF,
        on_write: Optional[Callable[[str, str, int], Any]] = None,
        timeout: Optional[float] = 30.0,
    ) -> None:
        self.provider = provider
        self.widgets = _provider.checked_widgets(provider, widgets)
        if every is not None and every <= 0:
            raise ValueError("every must be a positive number of seconds")
        self.every = every
        self._timeline = timeline
        self._on_write = on_write
        self._backoff = _provider.Backoff(*backoff)
        self._client = Client(socket, timeout=timeout)
        self._events: Optional["asyncio.Queue[Tuple[Optional[int], str, Any]]"] = None
        self._stopped = False
        self._session = 0

    @property
    def socket_path(self) -> str:
        """The daemon's socket."""
        return self._client.socket_path

    def _queue(self) -> "asyncio.Queue[Tuple[Optional[int], str, Any]]":
        # Made on first use, on the running loop (Python 3.9 binds a Queue to the loop
        # current when it is made).
        if self._events is None:
            self._events = asyncio.Queue()
        return self._events

    def update(self, widget: Optional[str] = None) -> None:
        """As :meth:`widgetd.Provider.update`, from the event loop's thread."""
        if widget is not None and widget not in self.widgets:
            raise ValueError("%r is not one of this provider's widgets" % (widget,))
        self._queue().put_nowait((None, "update", widget))

    def stop(self) -> None:
        """Makes :meth:`run` return."""
        self._stopped = True
        self._queue().put_nowait((None, "stop", None))

    async def run(self) -> None:
        """As :meth:`widgetd.Provider.run`."""
        events = self._queue()
        try:
            while not self._stopped:
                try:
                    await self._connected_run(events)
                    return
                except (DaemonUnavailable, TryAgainLater) as error:
                    wait = self._backoff.take(_provider.transient_wait(error) or 0.0)
                    try:
                        tag, kind, _ = await asyncio.wait_for(self._stop_requested(events), wait)
                        return
                    except asyncio.TimeoutError:
                        pass
        finally:
            await self._client.close()

    async def _stop_requested(self, events: "asyncio.Queue[Tuple[Optional[int], str, Any]]") -> Tuple[Optional[int], str, Any]:
        # While away, only a stop matters: updates are covered by the write on reconnecting.
        while True:
            event = await events.get()
            if event[1] == "stop":
                return event

    async def _connected_run(self, events: "asyncio.Queue[Tuple[Optional[int], str, Any]]") -> None:
        self._session += 1
        session = self._session
        stream = self._client.watch_reloads(self.provider)
        # Actions (WatchActions(provider), DESIGN §13) will be one more stream read the
        # same way, answered by an ``action`` function beside ``timeline``.
        reader = asyncio.ensure_future(self._read(session, stream, events))
        try:
            # The stream connects and subscribes at its first read: wait for that, so
            # that a request made during the first writes is heard.
            await stream.started.wait()
            for widget in self.widgets:
                await self._write(widget, "start")
            self._backoff.reset()
            await self._answer(session, events)
        finally:
            reader.cancel()
            await stream.aclose()

    async def _read(self, session: int, stream: "Stream", events: "asyncio.Queue[Tuple[Optional[int], str, Any]]") -> None:
        try:
            async for request in stream:
                events.put_nowait((session, "reload", request))
            ended: BaseException = DaemonUnavailable(None, {"socket": self.socket_path, "reason": "the stream ended"})
        except asyncio.CancelledError:
            raise
        except Exception as error:  # handed to the loop, which raises it or reconnects
            ended = error
        stream.started.set()
        events.put_nowait((session, "ended", ended))

    async def _answer(self, session: int, events: "asyncio.Queue[Tuple[Optional[int], str, Any]]") -> None:
        loop = asyncio.get_running_loop()
        due = None if self.every is None else loop.time() + self.every
        while True:
            try:
                wait = None if due is None else max(0.0, due - loop.time())
                tag, kind, value = await asyncio.wait_for(events.get(), wait)
            except asyncio.TimeoutError:
                for widget in self.widgets:
                    await self._write(widget, "scheduled")
                due = loop.time() + (self.every or 0)
                continue
            if tag is not None and tag != session:
                continue
            if kind == "stop":
                return
            if kind == "ended":
                raise value
            if kind == "update":
                for widget in self.widgets if value is None else (value,):
                    await self._write(widget, "update")
            elif kind == "reload" and value.get("widget") in self.widgets:
                await self._write(value["widget"], value.get("reason") or "requested")

    async def _write(self, widget: str, reason: str) -> None:
        timeline = self._timeline(widget, reason)
        if inspect.isawaitable(timeline):
            timeline = await timeline
        generation = await self._client.put_timeline(**_provider.put_arguments(widget, timeline))
        if self._on_write is not None:
            told = self._on_write(widget, reason, generation)
            if inspect.isawaitable(told):
                await told
