"""The provider helper: what every provider must do, done once (DESIGN §5, §10).

A provider writes its widgets' timelines on its own schedule *and* answers the
reload requests widgetd sends for them; it names itself when it subscribes (on a
per-user instance every app runs as the owner, who may provide every provider, so
an unnamed ``WatchReloads`` hears the other apps' requests too), and it survives
widgetd restarting: the stream ends with :class:`DaemonUnavailable`, the helper
waits (doubling from ``backoff[0]`` to ``backoff[1]`` seconds), subscribes again and
rewrites every widget, since it cannot know what it missed meanwhile.

The pure parts (checking the widgets, reading what ``timeline`` returns, the
backoff) are here for both faces: :class:`Provider` (threads) and
:class:`widgetd.aio.Provider` (asyncio).
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Tuple

from ._client import Client, Stream
from ._errors import DaemonUnavailable, TryAgainLater

__all__ = ["Provider", "REASONS"]

#: Why ``timeline`` is called: ``"start"`` (the first write after each connection),
#: ``"scheduled"`` (every ``every`` seconds), ``"update"`` (:meth:`Provider.update`),
#: or the daemon's reload reasons ``"due"`` and ``"requested"``.
REASONS = ("start", "scheduled", "update", "due", "requested")

#: The waits before reconnecting, in seconds: the first, and the longest.
DEFAULT_BACKOFF = (0.25, 30.0)

#: What ``timeline`` is: a widget id and a reason in, the timeline out.
TimelineFunction = Callable[[str, str], Any]


def checked_widgets(provider: str, widgets: Iterable[str]) -> Tuple[str, ...]:
    """The widget ids, in order, each checked to be ``provider``'s."""
    if not provider or "/" in provider:
        raise ValueError("provider must be a provider id such as com.example.weather, not %r" % (provider,))
    ids = tuple(dict.fromkeys(widgets))
    if not ids:
        raise ValueError("a provider needs at least one widget")
    for widget in ids:
        if not widget.startswith(provider + "/"):
            raise ValueError("widget %r is not %s's: its id must start with %s/" % (widget, provider, provider))
    return ids


def put_arguments(widget: str, timeline: Any) -> Dict[str, Any]:
    """The keyword arguments of ``put_timeline`` for what ``timeline`` returned: a
    mapping with ``entries`` and, optionally, ``policy``, ``placeholder``, ``family``."""
    if not isinstance(timeline, Mapping) or "entries" not in timeline:
        raise TypeError("timeline(%r, reason) must return a dict with \"entries\" (and optionally "
                        "\"policy\", \"placeholder\", \"family\"), not %r" % (widget, type(timeline).__name__))
    unknown = set(timeline) - {"entries", "policy", "placeholder", "family"}
    if unknown:
        raise TypeError("timeline(%r, reason) returned unknown keys: %s" % (widget, ", ".join(sorted(unknown))))
    return {
        "widget": widget,
        "entries": timeline["entries"],
        "family": timeline.get("family"),
        "policy": timeline.get("policy"),
        "placeholder": timeline.get("placeholder"),
    }


class Backoff:
    """The wait before each attempt to reach widgetd again: ``first`` after the first
    failure, doubled after each further one up to ``longest``, back to ``first`` once
    a connection worked."""

    def __init__(self, first: float, longest: float) -> None:
        if first <= 0 or longest < first:
            raise ValueError("backoff must be (first, longest) with 0 < first <= longest")
        self.first = first
        self.longest = longest
        self.next = first

    def take(self, at_least: float = 0.0) -> float:
        """The wait now (at least ``at_least``, as a ``TryAgainLater`` asks), and the
        next one doubled."""
        wait = max(self.next, at_least)
        self.next = min(self.next * 2, self.longest)
        return wait

    def reset(self) -> None:
        self.next = self.first


def transient_wait(error: BaseException) -> Optional[float]:
    """For an error that means "widgetd is not there (yet)", the least wait it asks for
    (0 for none); None for any other error, which the helper raises."""
    if isinstance(error, TryAgainLater):
        return float(error.retry_after or 0)
    if isinstance(error, DaemonUnavailable):
        return 0.0
    return None


class Provider:
    """Feeds one provider's widgets until :meth:`stop`, across widgetd's restarts.

    ``timeline(widget, reason)`` returns the widget's timeline as a dict: ``entries``
    (as :meth:`Client.put_timeline` takes them) and optionally ``policy``,
    ``placeholder`` and ``family``; ``reason`` is one of :data:`REASONS`. The helper
    calls it and writes the result:

    - for every widget when :meth:`run` has subscribed, and again after each reconnection;
    - for one widget when widgetd asks (``"due"``, ``"requested"``), only for its own
      widgets: it subscribes with ``WatchReloads(provider)``;
    - for every widget each ``every`` seconds, if given (its own schedule);
    - for one widget, or all, when :meth:`update` is called (from any thread: the
      app's data changed).

    ``on_write(widget, reason, generation)``, if given, is told of each write. Errors
    that mean widgetd is away (:class:`DaemonUnavailable`, :class:`TryAgainLater`)
    are waited out with ``backoff`` (first and longest wait, in seconds); any other
    (:class:`PermissionDenied`: this user may not provide it; :class:`InvalidTimeline`;
    an exception from ``timeline``) ends :meth:`run` with it.

    ::

        def forecast(widget, reason):
            return {"entries": [{"date": datetime.now(timezone.utc),
                                 "fields": {"temperature": {"value": read_sensor()}}}],
                    "policy": "never"}

        widgetd.Provider("com.example.weather", ["com.example.weather/forecast"],
                         forecast, every=600).run()
    """

    def __init__(
        self,
        provider: str,
        widgets: Iterable[str],
        timeline: TimelineFunction,
        *,
        socket: Optional[str] = None,
        every: Optional[float] = None,
        backoff: Tuple[float, float] = DEFAULT_BACKOFF,
        on_write: Optional[Callable[[str, str, int], None]] = None,
        timeout: Optional[float] = 30.0,
    ) -> None:
        self.provider = provider
        self.widgets = checked_widgets(provider, widgets)
        if every is not None and every <= 0:
            raise ValueError("every must be a positive number of seconds")
        self.every = every
        self._timeline = timeline
        self._on_write = on_write
        self._backoff = Backoff(*backoff)
        self._client = Client(socket, timeout=timeout)
        # Every event the loop answers, tagged with the connection it belongs to
        # (None: any): a reader of an earlier connection may still report its end.
        self._events: "queue.Queue[Tuple[Optional[int], str, Any]]" = queue.Queue()
        self._stopped = threading.Event()
        self._session = 0

    @property
    def socket_path(self) -> str:
        """The daemon's socket."""
        return self._client.socket_path

    def update(self, widget: Optional[str] = None) -> None:
        """Asks :meth:`run` to write ``widget`` (None: every widget) now, reason
        ``"update"``. Safe from any thread; while widgetd is away, the write after
        reconnecting covers it."""
        if widget is not None and widget not in self.widgets:
            raise ValueError("%r is not one of this provider's widgets" % (widget,))
        self._events.put((None, "update", widget))

    def stop(self) -> None:
        """Makes :meth:`run` return (from any thread)."""
        self._stopped.set()
        self._events.put((None, "stop", None))

    def run(self) -> None:
        """Subscribes, writes, answers and reconnects until :meth:`stop`."""
        try:
            while not self._stopped.is_set():
                try:
                    self._connected_run()
                    return
                except (DaemonUnavailable, TryAgainLater) as error:
                    least = transient_wait(error) or 0.0
                    if self._stopped.wait(self._backoff.take(least)):
                        return
        finally:
            self._client.close()

    # --- One connection -------------------------------------------------------------

    def _connected_run(self) -> None:
        self._session += 1
        session = self._session
        stream = self._client.watch_reloads(self.provider)
        # Actions (WatchActions(provider), DESIGN §13) will be one more stream read
        # the same way, its events answered by an ``action`` function beside
        # ``timeline``; the reconnection around them stays as it is.
        reader = threading.Thread(
            target=self._read, args=(session, stream), name="widgetd-provider-reloads", daemon=True
        )
        reader.start()
        try:
            for widget in self.widgets:
                self._write(widget, "start")
            self._backoff.reset()
            self._answer(session)
        finally:
            _shut(stream)

    def _read(self, session: int, stream: Stream) -> None:
        try:
            for request in stream:
                self._events.put((session, "reload", request))
            ended: BaseException = DaemonUnavailable(None, {"socket": self.socket_path, "reason": "the stream ended"})
        except BaseException as error:  # handed to the loop, which raises it or reconnects
            ended = error
        self._events.put((session, "ended", ended))

    def _answer(self, session: int) -> None:
        due = None if self.every is None else time.monotonic() + self.every
        while True:
            try:
                wait = None if due is None else max(0.0, due - time.monotonic())
                tag, kind, value = self._events.get(timeout=wait)
            except queue.Empty:
                for widget in self.widgets:
                    self._write(widget, "scheduled")
                due = time.monotonic() + (self.every or 0)
                continue
            if tag is not None and tag != session:
                continue
            if kind == "stop":
                return
            if kind == "ended":
                raise value
            if kind == "update":
                for widget in self.widgets if value is None else (value,):
                    self._write(widget, "update")
            elif kind == "reload" and value.get("widget") in self.widgets:
                self._write(value["widget"], value.get("reason") or "requested")

    def _write(self, widget: str, reason: str) -> None:
        arguments = put_arguments(widget, self._timeline(widget, reason))
        generation = self._client.put_timeline(**arguments)
        if self._on_write is not None:
            self._on_write(widget, reason, generation)


def _shut(stream: Stream) -> None:
    """Ends a stream whose reader thread may be blocked reading it: a shutdown wakes
    the read (a close alone would not), then the stream closes."""
    connection = stream._connection
    sock = connection.sock if connection is not None else None
    if sock is not None:
        try:
            import socket as _socket

            sock.shutdown(_socket.SHUT_RDWR)
        except OSError:
            pass
    stream.close()
