"""The synchronous client (DESIGN §10)."""

from __future__ import annotations

import select
import socket as _socket
import threading
import time
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

from . import _protocol as wire
from ._errors import DaemonUnavailable, PermissionDenied
from ._protocol import Passcode
from ._socket_location import resolve_socket

__all__ = ["Client", "Stream"]


def _connect(path: str, timeout: Optional[float]) -> _socket.socket:
    """A connected socket, or the error a person can act on."""
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM | _socket.SOCK_CLOEXEC)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
    except PermissionError as error:
        sock.close()
        raise PermissionDenied("widgetd.SocketAccessDenied", {"socket": path, "reason": error.strerror}) from None
    except OSError as error:
        sock.close()
        raise DaemonUnavailable(None, {"socket": path, "reason": error.strerror or str(error)}) from None
    return sock


def _time_left(deadline: Optional[float]) -> Optional[float]:
    """The seconds left before ``deadline`` (``time.monotonic()``), None for none;
    raises ``socket.timeout`` once it has passed."""
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise _socket.timeout("timed out")
    return left


class _Connection:
    """One socket to widgetd: sends calls, reads NUL-terminated replies.

    ``deadline`` (``time.monotonic()``, None: none) bounds each exchange as a whole:
    every socket operation gets only the time left, so a server that sends a byte
    now and then cannot stretch a call past it.
    """

    def __init__(self, path: str, deadline: Optional[float] = None) -> None:
        self.path = path
        try:
            timeout = _time_left(deadline)
        except OSError as error:
            raise DaemonUnavailable(None, {"socket": path, "reason": str(error)}) from None
        self.sock: Optional[_socket.socket] = _connect(path, timeout)
        self.reader = wire.MessageReader()

    def send(self, call: wire.Call, more: bool = False, deadline: Optional[float] = None) -> None:
        message = wire.encode_call(call, more)
        self.reader.limit = call.max_reply_bytes
        try:
            assert self.sock is not None
            self.sock.settimeout(_time_left(deadline))
            self.sock.sendall(message)
        except OSError as error:
            self.close()
            raise DaemonUnavailable(None, {"socket": self.path, "reason": error.strerror or str(error)}) from None
        finally:
            wire.zero(message)
            for secret in wire.secrets_of(call):
                wire.zero(secret)

    def receive(self, deadline: Optional[float] = None) -> Dict[str, Any]:
        while True:
            try:
                message = self.reader.next_message()
            except BaseException:
                self.close()
                raise
            if message is not None:
                return message
            try:
                assert self.sock is not None
                self.sock.settimeout(_time_left(deadline))
                data = self.sock.recv(65536)
            except OSError as error:
                self.close()
                raise DaemonUnavailable(None, {"socket": self.path, "reason": error.strerror or str(error)}) from None
            if not data:
                self.close()
                raise DaemonUnavailable(None, {"socket": self.path, "reason": "the daemon closed the connection"})
            try:
                self.reader.feed(data)
            except BaseException:
                self.close()
                raise

    def closed_by_peer(self) -> bool:
        """Whether widgetd has closed this idle connection (its IdleTimeoutSec=)."""
        if self.sock is None:
            return True
        readable, _, _ = select.select([self.sock], [], [], 0)
        if not readable:
            return False
        try:
            return self.sock.recv(1, _socket.MSG_PEEK | _socket.MSG_DONTWAIT) == b""
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
    """The replies of a streaming call (``watch``, ``watch_reloads``, ``monitor``).

    Iterate over it; each item is one reply as a dict. It has a connection of its
    own, which :meth:`close` (or leaving a ``with`` block) closes: widgetd then
    ends the stream. An error widgetd answers with, first or later, is raised from
    the iteration; a daemon that stops or restarts raises :class:`DaemonUnavailable`.
    """

    def __init__(self, path: str, call: wire.Call) -> None:
        self._call = call
        self._connection: Optional[_Connection] = None
        self._connection = _Connection(path)
        self._connection.send(call, more=True)

    def __iter__(self) -> "Stream":
        return self

    def __next__(self) -> Any:
        connection = self._connection
        if connection is None:
            raise StopIteration
        try:
            message = connection.receive()
            result = wire.decode_reply(self._call, message)
        except BaseException:
            self.close()
            raise
        if not message.get("continues"):
            self.close()
        return result

    def close(self) -> None:
        """Ends the stream: closes its connection."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


class Client:
    """A connection to widgetd, for hosts, providers and the device's owner.

    ``socket`` is the daemon's socket; None means ``WIDGETD_SOCKET``, then
    widgetctl's defaults (``/run/widgetd/widgetd.sock`` as root, else
    ``$XDG_RUNTIME_DIR/widgetd/widgetd.sock``). ``timeout`` (seconds, None: wait)
    bounds each call as a whole, connecting included, not streams: a call not
    answered in time raises :class:`DaemonUnavailable` (``reason`` "timed out").

    The connection opens at the first call and is reopened if widgetd closed it
    while idle. Calls from several threads take turns. Streams (:meth:`watch`,
    :meth:`watch_reloads`, :meth:`monitor`) each use a connection of their own.
    Results are dicts in the wire's spelling (``passcodeSet``, ``validUntil``).

    Every error widgetd answers with raises its :class:`widgetd.Error` subclass;
    an unreachable daemon raises :class:`widgetd.DaemonUnavailable`, and a reply
    that cannot be read :class:`widgetd.MalformedReply`.
    """

    def __init__(self, socket: Optional[str] = None, timeout: Optional[float] = None) -> None:
        self.socket_path: str = resolve_socket(socket)
        self.timeout = timeout
        self._connection: Optional[_Connection] = None
        self._lock = threading.Lock()

    # --- Lifecycle -------------------------------------------------------------

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection (streams have their own and stay open)."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def _run(self, call: wire.Call) -> Any:
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        with self._lock:
            try:
                if self._connection is None or self._connection.closed_by_peer():
                    if self._connection is not None:
                        self._connection.close()
                    self._connection = _Connection(self.socket_path, deadline)
                connection = self._connection
                connection.send(call, deadline=deadline)
                message = connection.receive(deadline)
            except BaseException:
                # Whatever broke (a timeout, an interrupt), a reply may still come:
                # the connection is out of step, so start again on a new one.
                for secret in wire.secrets_of(call):
                    wire.zero(secret)
                if self._connection is not None:
                    self._connection.close()
                    self._connection = None
                raise
        return wire.decode_reply(call, message)

    # --- io.widgetd.Device -------------------------------------------------------

    def status(self) -> Dict[str, Any]:
        """The device's state, key availability, failed attempts and settings,
        as ``GetStatus`` returns them."""
        return self._run(wire.status())

    def unlock(self, passcode: Passcode) -> None:
        """Unlocks the device (the first unlock since start releases every class key).

        ``passcode`` may be a ``str`` or bytes-like. It is copied into a bytearray,
        put into the message without becoming another ``str``, and both buffers are
        zeroed as soon as the message is sent. What Python cannot promise: a ``str``
        is immutable and stays in memory until it is garbage-collected (encoding it
        also makes a temporary ``bytes`` that is freed unzeroed), and the kernel
        and the daemon hold their own copies. To keep the only long-lived copy in
        your hands, pass a ``bytearray`` and zero it yourself after the call.

        Raises :class:`WrongPasscode` (``failed_attempts``, ``retry_after``),
        :class:`TryAgainLater` (``retry_after``), :class:`UnlockInterrupted`,
        :class:`Wiped`.
        """
        self._run(wire.unlock(wire.passcode_buffer(passcode)))

    def lock(self) -> None:
        """Locks the device: locked surfaces change at once, class keys are purged
        as their class prescribes."""
        self._run(wire.lock())

    def set_passcode(self, current: Optional[Passcode] = None, new: Optional[Passcode] = None) -> None:
        """Sets a passcode (no ``current``), changes it, or removes it (no ``new``).

        The passcodes are handled as in :meth:`unlock`.
        """
        self._run(
            wire.set_passcode(
                wire.passcode_buffer(current) if current is not None else None,
                wire.passcode_buffer(new) if new is not None else None,
            )
        )

    def settings(self) -> Dict[str, Any]:
        """The settings (``lockScreenWidgetsAccess``, ``hiddenLockScreenWidgets``,
        ``hideSensitiveComplications``, ``hiddenComplications``)."""
        return self._run(wire.settings())

    def set_settings(
        self,
        lock_screen_widgets_access: Optional[bool] = None,
        hide_sensitive_complications: Optional[str] = None,
        hidden_complications: Optional[Sequence[str]] = None,
        hidden_lock_screen_widgets: Optional[Sequence[str]] = None,
    ) -> Dict[str, Any]:
        """Changes the settings given (``hide_sensitive_complications`` is ``"off"``,
        ``"all"`` or ``"selected"``; ``hidden_lock_screen_widgets`` lists the widgets
        redacted on the locked lock screen even while access is on) and returns all
        of them."""
        return self._run(
            wire.set_settings(
                lock_screen_widgets_access, hide_sensitive_complications, hidden_complications, hidden_lock_screen_widgets
            )
        )

    def monitor(self) -> Stream:
        """Each state or settings change, as a ``DeviceEvent`` dict (``kind``,
        ``state``, ``passcodeSet``, ``settings``); the first is the current state."""
        return Stream(self.socket_path, wire.monitor())

    # --- io.widgetd.Provider -----------------------------------------------------

    def put_timeline(
        self,
        widget: str,
        entries: Iterable[Mapping[str, Any]],
        family: Optional[str] = None,
        policy: Any = None,
        placeholder: Optional[Mapping[str, Any]] = None,
    ) -> int:
        """Replaces a widget's timeline and returns its new generation.

        ``entries`` are dicts as the wire has them (``date``, ``fields``, optional
        ``relevance``); a ``date`` may be an aware ``datetime``. ``policy`` is a
        dict, ``"atEnd"``, ``"never"``, or a ``datetime`` (reload after it).
        ``placeholder`` is ``{"fields": {...}}``, kept until replaced.
        """
        return self._run(wire.put_timeline(widget, entries, family, policy, placeholder))

    def append_entries(self, widget: str, entries: Iterable[Mapping[str, Any]]) -> int:
        """Appends entries to a readable timeline and returns its new generation."""
        return self._run(wire.append_entries(widget, entries))

    def get_timeline(self, widget: str) -> Dict[str, Any]:
        """The stored timeline (``family``, ``entries``, ``policy``, ``generation``);
        it must be readable in the current state."""
        return self._run(wire.get_timeline(widget))

    def close_timeline(self, widget: str) -> None:
        """Closes an open timeline: the daemon drops its plaintext."""
        self._run(wire.close_timeline(widget))

    def delete_timeline(self, widget: str) -> None:
        """Deletes a widget's timeline."""
        self._run(wire.delete_timeline(widget))

    def watch_reloads(self, provider: Optional[str] = None) -> Stream:
        """Each reload request for ``provider``'s widgets (None: every provider the
        caller may provide, which on a per-user instance is every provider): dicts
        with ``widget`` and ``reason`` (``"due"`` or ``"requested"``). Answer one by
        writing the widget's timeline again. A provider names itself, or uses
        :class:`widgetd.Provider`, which does, and reconnects."""
        return Stream(self.socket_path, wire.watch_reloads(provider))

    def watch_actions(self, provider: Optional[str] = None) -> Stream:
        """Each action a host performed on the caller's widgets (of ``provider``
        only, if given), delivered once to one watching connection: dicts with
        ``id``, ``widget``, ``action``, ``isOn`` (a toggle's new state), ``surface``
        and ``whileLocked``. Answer one by writing the widget's timeline again."""
        return Stream(self.socket_path, wire.watch_actions(provider))

    # --- io.widgetd.Host ---------------------------------------------------------

    def list_widgets(self, provider: Optional[str] = None, max_widgets: int = wire.MAX_LIST_WIDGETS) -> List[Dict[str, Any]]:
        """Every stored widget (of ``provider`` if given), in widget id order, as
        ``WidgetInfo`` dicts; read page by page.

        At most ``max_widgets`` (``widgetd.MAX_LIST_WIDGETS``, 100,000, by default):
        more raise :class:`TooLarge` named ``widgetd.TooManyWidgets`` (``limit``), so
        a server that never stops paging cannot fill the memory. A page that does
        not move on raises :class:`MalformedReply`. ``timeout`` bounds each page.
        """
        listing = wire.WidgetList(provider, max_widgets)
        while listing.take(self._run(listing.next_call())):
            pass
        return listing.widgets

    def get_presentation(self, widget: str, surface: str) -> Dict[str, Any]:
        """What ``surface`` (``homeScreen``, ``lockScreen``, ``alwaysOn``, ``remote``,
        or widgetctl's ``lock-screen`` spelling) may show of a widget now."""
        return self._run(wire.get_presentation(widget, surface))

    def reload_timelines(self, provider: Optional[str] = None, kind: Optional[str] = None) -> None:
        """Asks providers to reload their timelines: all, or those given."""
        self._run(wire.reload_timelines(provider, kind))

    def watch(self, widget: str, surface: str) -> Stream:
        """Each presentation of a widget on a surface as it changes; the first is
        the current one."""
        return Stream(self.socket_path, wire.watch(widget, surface))

    def perform_action(self, widget: str, surface: str, action: str, wait: bool = False) -> str:
        """Performs an action of the presentation ``surface`` shows now and returns
        its outcome: ``"delivered"``, ``"held"`` (it waits for an unlock) or
        ``"expired"``.

        With ``wait`` a held action is followed on a connection of its own until
        its final outcome, ``"delivered"`` or ``"expired"`` (within the daemon's
        ``ActionHoldSec=``). An action the surface does not show raises
        :class:`ActionNotAvailable`; a provider that is not running,
        :class:`ProviderUnavailable`.
        """
        call = wire.perform_action(widget, surface, action)
        if not wait:
            return self._run(call)
        outcome = "expired"
        with Stream(self.socket_path, call) as replies:
            for outcome in replies:
                pass
        return outcome

    def watch_widgets(self) -> Stream:
        """Each change of the stored widgets: dicts with ``event`` (``"added"``,
        ``"removed"`` or ``"changed"``) and ``widget`` (a ``WidgetInfo`` dict)."""
        return Stream(self.socket_path, wire.watch_widgets())
