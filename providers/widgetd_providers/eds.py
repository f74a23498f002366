"""widgetd-provider-calendar: evolution-data-server's events as org.widgetd.calendar/upcoming.

Follows every enabled calendar of the user's evolution-data-server: the source
registry's ``source-added``/``-removed``/``-enabled``/``-disabled``, and for each
calendar a view over today and tomorrow (``objects-added``, ``-modified``,
``-removed``). A calendar backend that dies (``backend-died``) is connected again with
backoff; the registry follows its own service restarting. No polling: the one
timer is the reload widgetd asks for at midnight, when "tomorrow" moves on.
The ``open`` action starts the default calendar application (``text/calendar``).
"""

from __future__ import annotations

import datetime as _dt
import os
import sys
from typing import Any, Dict, List, Optional, Tuple

import gi

gi.require_version("ECal", "2.0")
gi.require_version("EDataServer", "1.2")
gi.require_version("ICalGLib", "3.0")
from gi.repository import ECal, EDataServer, Gio, GLib, GObject, ICalGLib  # noqa: E402

from . import calendar  # noqa: E402
from .runner import Provider, main as run  # noqa: E402
from .text import MAX_INPUT  # noqa: E402

#: Seconds a new calendar client waits for its backend to say it is online: a
#: local calendar never does (no network), so this is what connecting costs.
CONNECT_WAIT = 1
RETRY_MAX = 60.0


def _local_zone() -> _dt.tzinfo:
    """The local time zone with its rules (``TZ``, else ``/etc/localtime``'s name), so
    that midnight and "HH:MM" stay right across a daylight-saving change; a fixed
    offset only when neither names one."""
    import zoneinfo
    names = [os.environ.get("TZ", "").lstrip(":")]
    try:
        target = os.path.realpath("/etc/localtime")
        if "/zoneinfo/" in target:
            names.append(target.split("/zoneinfo/", 1)[1])
    except OSError:
        pass
    for name in names:
        if name:
            try:
                return zoneinfo.ZoneInfo(name)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                continue
    return _dt.datetime.now().astimezone().tzinfo or _dt.timezone.utc


def _moment(value: ICalGLib.Time, zone: _dt.tzinfo) -> Tuple[_dt.datetime, bool]:
    """An ICalGLib time as an aware datetime (floating and all-day times are local)."""
    if value.is_date():
        day = _dt.date(value.get_year(), value.get_month(), value.get_day())
        return _dt.datetime.combine(day, _dt.time(0), tzinfo=zone), True
    timezone = value.get_timezone()
    if timezone is None and not value.is_utc():
        naive = _dt.datetime(value.get_year(), value.get_month(), value.get_day(),
                             value.get_hour(), value.get_minute(), value.get_second())
        return naive.replace(tzinfo=zone), False
    seconds = value.as_timet_with_zone(timezone or ICalGLib.Timezone.get_utc_timezone())
    return _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc), False


class _Calendar:
    """One enabled calendar: its client, its view, and the occurrences it holds."""

    def __init__(self, source: EDataServer.Source) -> None:
        self.source = source
        self.uid = source.get_uid()
        self.client: Optional[ECal.Client] = None
        self.view: Optional[ECal.ClientView] = None
        self.cancellable = Gio.Cancellable()
        self.events: Dict[str, List[calendar.Event]] = {}   # component uid -> its occurrences
        self.retry = 0.0
        self.retry_source = 0
        self.complete = False

    def close(self) -> None:
        self.cancellable.cancel()
        if self.retry_source:
            GLib.source_remove(self.retry_source)
            self.retry_source = 0
        if self.view is not None:
            try:
                self.view.stop()
            except GLib.Error:
                pass
        self.view = None
        self.client = None
        self.complete = False


class CalendarProvider(Provider):
    name = "widgetd-provider-calendar"
    provider = calendar.PROVIDER
    description = "Write the next events of evolution-data-server's calendars to widgetd as org.widgetd.calendar/upcoming."
    has_actions = True

    def __init__(self, sink: Any, log: Any) -> None:
        super().__init__(sink, log)
        self.zone = _local_zone()
        self.registry: Optional[EDataServer.SourceRegistry] = None
        self.calendars: Dict[str, _Calendar] = {}
        self.window: Tuple[_dt.datetime, _dt.datetime] = self._window()

    def _window(self) -> Tuple[_dt.datetime, _dt.datetime]:
        now = _dt.datetime.now(_dt.timezone.utc)
        local = now.astimezone(self.zone)
        start = _dt.datetime.combine(local.date(), _dt.time(0), tzinfo=self.zone)
        return start, calendar.window_end(now, self.zone)

    def start(self) -> None:
        self.update()
        EDataServer.SourceRegistry.new(None, self._registry_ready, None)

    def stop(self) -> None:
        for entry in self.calendars.values():
            entry.close()

    # --- The registry ------------------------------------------------------------

    def _registry_ready(self, source: Any, result: Gio.AsyncResult, data: Any) -> None:
        try:
            self.registry = EDataServer.SourceRegistry.new_finish(result)
        except GLib.Error as error:
            self.log.error("evolution-data-server's registry: %s; showing the placeholder", error.message)
            return
        for signal in ("source-added", "source-enabled", "source-changed"):
            self.registry.connect(signal, lambda registry, source: self._consider(source))
        for signal in ("source-removed", "source-disabled"):
            self.registry.connect(signal, lambda registry, source: self._drop(source.get_uid()))
        for source in self.registry.list_sources(EDataServer.SOURCE_EXTENSION_CALENDAR):
            self._consider(source)

    def _consider(self, source: EDataServer.Source) -> None:
        if not source.has_extension(EDataServer.SOURCE_EXTENSION_CALENDAR):
            return
        wanted = self.registry is not None and self.registry.check_enabled(source)
        if not wanted:
            self._drop(source.get_uid())
        elif source.get_uid() not in self.calendars:
            entry = _Calendar(source)
            self.calendars[entry.uid] = entry
            self._connect(entry)

    def _drop(self, uid: str) -> None:
        entry = self.calendars.pop(uid, None)
        if entry is not None:
            entry.close()
            self.update()

    # --- One calendar ------------------------------------------------------------

    def _connect(self, entry: _Calendar) -> None:
        entry.retry_source = 0

        def connected(source: Any, result: Gio.AsyncResult, data: Any) -> None:
            try:
                client = ECal.Client.connect_finish(result)
            except GLib.Error as error:
                if not error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED):
                    self._retry(entry, "connect: " + error.message)
                return
            entry.client = client
            GObject.Object.connect(client, "backend-died", lambda client: self._retry(entry, "its backend died"))
            self._open_view(entry)

        ECal.Client.connect(entry.source, ECal.ClientSourceType.EVENTS, CONNECT_WAIT, entry.cancellable, connected, None)

    def _retry(self, entry: _Calendar, reason: str) -> None:
        if self.calendars.get(entry.uid) is not entry:
            return
        entry.close()
        entry.cancellable = Gio.Cancellable()
        entry.retry = min(RETRY_MAX, entry.retry * 2 if entry.retry else 0.5)
        self.log.warning("calendar %s: %s; connecting again in %gs", entry.uid, reason, entry.retry)
        entry.retry_source = GLib.timeout_add(int(entry.retry * 1000), lambda: self._connect(entry) or False)

    def _open_view(self, entry: _Calendar) -> None:
        client = entry.client
        if client is None:
            return
        start, end = self.window
        sexp = '(occur-in-time-range? (make-time "%s") (make-time "%s"))' % (
            start.astimezone(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ"),
            end.astimezone(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ"))

        def viewed(source: Any, result: Gio.AsyncResult, data: Any) -> None:
            try:
                ok, view = client.get_view_finish(result)
            except GLib.Error as error:
                if not error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED):
                    self._retry(entry, "view: " + error.message)
                return
            entry.view = view
            entry.events = {}
            view.connect("objects-added", lambda view, objects: self._objects(entry, objects))
            view.connect("objects-modified", lambda view, objects: self._objects(entry, objects))
            view.connect("objects-removed", lambda view, ids: self._removed(entry, ids))
            view.connect("complete", lambda view, error: self._complete(entry))
            view.start()

        client.get_view(sexp, entry.cancellable, viewed, None)

    def _complete(self, entry: _Calendar) -> None:
        entry.retry = 0.0
        entry.complete = True
        self.log.info("following calendar %s", entry.uid)
        self.update()

    def _objects(self, entry: _Calendar, objects: List[ICalGLib.Component]) -> None:
        for component in objects:
            try:
                uid = component.get_uid()
            except (GLib.Error, TypeError):
                uid = None
            if not uid:
                self.left_out(["an event without a uid"])
                continue
            entry.events[uid] = self._occurrences(entry, component, uid)
        self.update()

    def _removed(self, entry: _Calendar, ids: List[ECal.ComponentId]) -> None:
        for component_id in ids:
            entry.events.pop(component_id.get_uid(), None)
        self.update()

    def _occurrences(self, entry: _Calendar, component: ICalGLib.Component, uid: str) -> List[calendar.Event]:
        """Every occurrence of ``component`` in the window (recurrences expanded by
        libecal, which may ask the backend for a time zone: a local D-Bus round trip)."""
        start, end = self.window
        out: List[calendar.Event] = []

        def occurrence(instance: ICalGLib.Component, begins: ICalGLib.Time, ends: ICalGLib.Time, *rest: Any) -> bool:
            try:
                first, all_day = _moment(begins, self.zone)
                last, _ = _moment(ends, self.zone)
            except (GLib.Error, ValueError, OverflowError):
                self.left_out(["an event time"])
                return True
            if last <= first:
                last = first + (_dt.timedelta(days=1) if all_day else _dt.timedelta(0))
            out.append(calendar.Event(first, last, all_day, _bounded(instance.get_summary()),
                                      _bounded(instance.get_location()), uid + "/" + first.isoformat()))
            return len(out) < calendar.MAX_ENTRIES

        client = entry.client
        if client is None:
            return out
        try:
            client.generate_instances_for_object_sync(component, int(start.timestamp()), int(end.timestamp()),
                                                      None, occurrence)
        except GLib.Error as error:
            self.left_out(["an event's occurrences (%s)" % error.domain])
        return out

    # --- The timeline ------------------------------------------------------------

    def events(self) -> List[calendar.Event]:
        return [event for entry in self.calendars.values() for occurrences in entry.events.values()
                for event in occurrences]

    def update(self) -> None:
        now = _dt.datetime.now(_dt.timezone.utc)
        entries = self.calendars.values()
        if not any(e.complete for e in entries) or not all(e.complete or e.retry_source for e in entries):
            # Not every calendar read yet (evolution-data-server absent or starting): the
            # placeholder, rather than "no more events" before the last calendar answered.
            self.show(calendar.WIDGET, calendar.absent(), None)
            return
        events = self.events()
        problems: List[str] = []
        timeline = calendar.timeline(events, now, self.zone, problems)
        self.left_out(problems)
        self.show(calendar.WIDGET, timeline, calendar.key(events, now, self.zone))

    def reload(self, widget: str, reason: str) -> None:
        """Due at midnight: the window moves on, so every view is opened again."""
        self.forget(widget)
        window = self._window()
        if window != self.window:
            self.window = window
            for entry in self.calendars.values():
                if entry.client is not None:
                    if entry.view is not None:
                        entry.view.stop()
                    self._open_view(entry)
        self.update()

    def perform(self, event: Dict[str, Any]) -> None:
        if event.get("action") != "open":
            self.log.warning("unknown action on %s", calendar.WIDGET)
        else:
            self._open_calendar()
        # widgetd waits for a timeline after an action.
        self.forget(calendar.WIDGET)
        self.update()

    def _open_calendar(self) -> None:
        """Starts the default application for text/calendar. Under systemd it is started
        as a transient unit of the user manager (``systemd-run --user``), so that it gets
        none of this unit's sandbox (no network, a read-only home)."""
        application = Gio.AppInfo.get_default_for_type("text/calendar", False)
        if application is None:
            self.log.warning("open: no application for text/calendar")
            return
        desktop_file = application.get_filename() if hasattr(application, "get_filename") else None
        run = GLib.find_program_in_path("systemd-run")
        try:
            if os.environ.get("INVOCATION_ID") and run and desktop_file:
                process = Gio.Subprocess.new([run, "--user", "--collect", "--quiet", "--",
                                              "gio", "launch", desktop_file], Gio.SubprocessFlags.NONE)
                process.wait_async(None, None, None)
            else:
                application.launch([], None)
            self.log.info("open: started %s", application.get_id())
        except GLib.Error as error:
            self.log.warning("open: %s: %s", application.get_id(), error.message)


def _bounded(value: Any) -> Any:
    """A text kept no longer than cleaning looks at (one character more, so that
    cleaning still sees it was too long): a 10 MB title is not held in memory."""
    return value[: MAX_INPUT + 1] if isinstance(value, str) else value


def main() -> int:
    return run(CalendarProvider)


if __name__ == "__main__":
    sys.exit(main())
