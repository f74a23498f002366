"""widgetd-provider-calendar against evolution-data-server with its local calendar,
on the session bus of ``dbus-run-session`` with an empty HOME (scripts/test-providers
runs it so): events added, changed and removed are followed live."""

from __future__ import annotations

import datetime as _dt
import os
import signal
import subprocess
import sys
import time
import unittest

import gi

gi.require_version("ECal", "2.0")
gi.require_version("EDataServer", "1.2")
gi.require_version("ICalGLib", "3.0")
from gi.repository import ECal, EDataServer, Gio, GLib, ICalGLib  # noqa: E402

import widgetd  # noqa: E402

from .services import (BENCH_ROUNDS, DEADLINE, PASSCODE, Host, ProviderProcess, actions, idle,  # noqa: E402
                       perform_action, redacted, report, start_daemon, value)
from .sources import add_event  # noqa: E402

WIDGET = "org.widgetd.calendar/upcoming"
FACTORY = "evolution-calendar-factory"
FACTORY_NAME = "org.gnome.evolution.dataserver.Calendar8"


def _utc(moment: _dt.datetime) -> ICalGLib.Time:
    return ICalGLib.Time.new_from_timet_with_zone(int(moment.timestamp()), 0, ICalGLib.Timezone.get_utc_timezone())


def _connect_when_known(source: EDataServer.Source) -> ECal.Client:
    """A client of a calendar just committed to the registry. The calendar factory
    learns of it from the registry's signal on its own bus connection, so for a moment
    after the commit it answers "no such source"; that, and only that, is asked again."""
    end = time.monotonic() + DEADLINE
    while True:
        try:
            return ECal.Client.connect_sync(source, ECal.ClientSourceType.EVENTS, 1, None)
        except GLib.Error as error:
            if not error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND) or time.monotonic() > end:
                raise
            time.sleep(0.05)


@unittest.skipUnless(os.environ.get("DBUS_SESSION_BUS_ADDRESS") and os.path.exists("/usr/libexec/" + FACTORY),
                     "needs a session bus and evolution-data-server")
class CalendarServiceTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        registry = EDataServer.SourceRegistry.new_sync(None)
        cls.source = registry.ref_builtin_calendar()
        cls.client = ECal.Client.connect_sync(cls.source, ECal.ClientSourceType.EVENTS, 1, None)
        cls.daemon = start_daemon()
        with widgetd.Client(cls.daemon.socket) as c:
            c.set_passcode(new=PASSCODE)
        cls.provider = ProviderProcess("widgetd-provider-calendar", cls.daemon.socket, cls.daemon.root)
        cls.host = Host(cls.daemon.socket, WIDGET, "lockScreen")
        cls.host.wait_for(lambda p: value(p, "title") == "No more events", "with no events")

    @classmethod
    def tearDownClass(cls) -> None:
        cls.host.close()
        status = cls.provider.stop()
        if os.environ.get("WIDGETD_PROVIDER_TEST_LOGS"):
            print(cls.provider.log(), cls.daemon.log())
        cls.daemon.remove()
        assert status == 0, "the provider did not exit cleanly on SIGTERM:\n" + cls.provider.log()

    def add(self, summary: str, start: _dt.datetime, end: _dt.datetime, location: str = "Main street") -> str:
        component = ICalGLib.Component.new_vevent()
        component.set_summary(summary)
        component.set_location(location)
        component.set_dtstart(_utc(start))
        component.set_dtend(_utc(end))
        ok, uid = self.client.create_object_sync(component, ECal.OperationFlags.NONE, None)
        self.addCleanup(self.remove, uid)
        return uid

    def add_elsewhere(self, summary: str, start: _dt.datetime, end: _dt.datetime) -> None:
        """Adds an event from a new process (D-Bus activation starts the factory again)."""
        add_event(summary, int(start.timestamp()), int(end.timestamp()), timeout=DEADLINE)

    def remove(self, uid: str) -> None:
        try:
            self.client.remove_object_sync(uid, None, ECal.ObjModType.ALL, ECal.OperationFlags.NONE, None)
        except Exception:
            pass

    def test_1_events_added_changed_and_removed_are_followed(self) -> None:
        now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
        start, end = now + _dt.timedelta(minutes=30), now + _dt.timedelta(minutes=90)
        started = time.monotonic()
        uid = self.add("Dentist", start, end)
        shown = self.host.wait_for(lambda p: value(p, "title") == "Dentist", "with the event added")
        added = time.monotonic() - started
        self.assertEqual(shown["mode"], "content")
        self.assertEqual(value(shown, "location"), "Main street")
        self.assertEqual(value(shown, "start"), start.strftime("%Y-%m-%dT%H:%M:%SZ"))
        self.assertEqual([a["id"] for a in actions(shown)], ["open"])
        self.assertEqual(actions(shown)[0]["authentication"], "requiresAuthentication")
        # One entry per foreseeable change: now, the start, the end.
        with widgetd.Client(self.daemon.socket) as c:
            dates = [e["date"] for e in c.get_timeline(WIDGET)["entries"]]
        self.assertEqual(len(dates), 3, dates)
        self.assertTrue(dates[1].startswith(start.strftime("%Y-%m-%dT%H:%M:%S")), dates)
        self.assertTrue(dates[2].startswith(end.strftime("%Y-%m-%dT%H:%M:%S")), dates)

        component = self.client.get_object_sync(uid, None, None)[1]
        component.set_summary("Lunch")
        started = time.monotonic()
        self.client.modify_object_sync(component, ECal.ObjModType.ALL, ECal.OperationFlags.NONE, None)
        self.host.wait_for(lambda p: value(p, "title") == "Lunch", "with the event changed")
        changed = time.monotonic() - started

        started = time.monotonic()
        self.remove(uid)
        self.host.wait_for(lambda p: value(p, "title") == "No more events", "with the event removed")
        removed = time.monotonic() - started
        print("calendar: source change to host, seconds: added %.3f, changed %.3f, removed %.3f"
              % (added, changed, removed))

    def test_2_titles_are_redacted_while_locked_when_the_settings_say_so_times_are_not(self) -> None:
        now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
        start = now + _dt.timedelta(minutes=40)
        self.add("Job interview", start, start + _dt.timedelta(hours=1), "Secret Street 1")
        self.host.wait_for(lambda p: value(p, "title") == "Job interview", "with the event")
        with widgetd.Client(self.daemon.socket) as c:
            c.lock()
        try:
            # Class C stays readable after the first unlock; the settings decide.
            with widgetd.Client(self.daemon.socket) as c:
                c.set_settings(lock_screen_widgets_access=False)
            shown = self.host.wait_for(lambda p: p["mode"] == "redacted", "redacted")
            self.assertTrue(redacted(shown, "title"))
            self.assertTrue(redacted(shown, "location"))
            self.assertNotIn("Job interview", repr(shown))
            self.assertNotIn("Secret Street", repr(shown))
            self.assertEqual(value(shown, "start"), start.strftime("%Y-%m-%dT%H:%M:%SZ"))
            self.assertFalse(redacted(shown, "start"))
        finally:
            with widgetd.Client(self.daemon.socket) as c:
                c.set_settings(lock_screen_widgets_access=True)
                c.unlock(PASSCODE)

    def test_3_a_hostile_title_is_cleaned_and_never_logged(self) -> None:
        now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
        hostile = "Pay\u202eroll\x07 " + "z" * (10 * 1024 * 1024)
        self.add(hostile, now + _dt.timedelta(minutes=5), now + _dt.timedelta(minutes=10), "Room\x1b[2J 4")
        shown = self.host.wait_for(lambda p: (value(p, "title") or "").startswith("Payroll z"), "with the title cleaned")
        self.assertEqual(len(value(shown, "title")), 120)
        self.assertEqual(value(shown, "location"), "Room[2J 4")
        self.assertTrue(self.provider.alive())
        log = self.provider.log()
        self.assertNotIn("Payroll", log)
        self.assertNotIn("zzzz", log)
        self.assertEqual(log.count("event title: too long"), 1, log)

    def test_7_the_calendar_factory_restarting_is_followed(self) -> None:
        # The factory of this test's own session bus, by its pid (not by name: other
        # sessions on the machine have theirs).
        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        (pid,) = bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "GetConnectionUnixProcessID", GLib.Variant("(s)", (FACTORY_NAME,)), None,
                               Gio.DBusCallFlags.NONE, 5000, None).unpack()
        os.kill(pid, signal.SIGTERM)
        now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
        self.add_elsewhere("After the restart", now + _dt.timedelta(minutes=20), now + _dt.timedelta(minutes=30))
        self.host.wait_for(lambda p: value(p, "title") == "After the restart", "after the factory restarted")
        self.assertIn("backend died", self.provider.log())

    def test_8_widgetd_restarting_gets_the_timeline_again(self) -> None:
        now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
        self.daemon.stop()
        self.add_elsewhere("While widgetd was away", now + _dt.timedelta(minutes=15), now + _dt.timedelta(minutes=25))
        self.daemon.start()
        with widgetd.Client(self.daemon.socket) as c:
            c.unlock(PASSCODE)
        self.host.wait_for(lambda p: value(p, "title") == "While widgetd was away", "after widgetd restarted")


    def test_5_a_recurring_event_is_one_entry_per_occurrence(self) -> None:
        now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
        start = now + _dt.timedelta(minutes=10)
        component = ICalGLib.Component.new_vevent()
        component.set_summary("Medication")
        component.set_dtstart(_utc(start))
        component.set_dtend(_utc(start + _dt.timedelta(minutes=5)))
        component.add_property(ICalGLib.Property.new_from_string("RRULE:FREQ=HOURLY;COUNT=3"))
        ok, uid = self.client.create_object_sync(component, ECal.OperationFlags.NONE, None)
        self.addCleanup(self.remove, uid)
        self.host.wait_for(lambda p: value(p, "title") == "Medication", "with the recurring event")
        with widgetd.Client(self.daemon.socket) as c:
            dates = [e["date"] for e in c.get_timeline(WIDGET)["entries"]]
        for hour in range(3):
            for moment in (start + _dt.timedelta(hours=hour), start + _dt.timedelta(hours=hour, minutes=5)):
                self.assertTrue(any(d.startswith(moment.strftime("%Y-%m-%dT%H:%M:%S")) for d in dates),
                                (moment, dates))

    def test_6_a_calendar_added_then_disabled_is_followed(self) -> None:
        registry = EDataServer.SourceRegistry.new_sync(None)
        source = EDataServer.Source.new(None, None)
        source.set_display_name("Work")
        source.set_parent("local-stub")
        source.get_extension(EDataServer.SOURCE_EXTENSION_CALENDAR).set_backend_name("local")
        registry.commit_source_sync(source, None)
        client = _connect_when_known(source)
        now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
        component = ICalGLib.Component.new_vevent()
        component.set_summary("Board meeting")
        component.set_dtstart(_utc(now + _dt.timedelta(minutes=2)))
        component.set_dtend(_utc(now + _dt.timedelta(minutes=3)))
        client.create_object_sync(component, ECal.OperationFlags.NONE, None)
        self.host.wait_for(lambda p: value(p, "title") == "Board meeting", "with the new calendar's event")
        registered = registry.ref_source(source.get_uid())
        registered.set_enabled(False)
        registered.write_sync(None)
        self.host.wait_for(lambda p: value(p, "title") != "Board meeting" and p["mode"] == "content",
                           "without the disabled calendar's event")

    def test_4_open_waits_for_an_unlock_and_then_reaches_the_provider(self) -> None:
        now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
        self.add("Standup", now + _dt.timedelta(minutes=3), now + _dt.timedelta(minutes=4))
        self.host.wait_for(lambda p: value(p, "title") == "Standup", "with the event")
        with widgetd.Client(self.daemon.socket) as c:
            c.lock()
        try:
            try:
                outcome = perform_action(self.daemon.socket, WIDGET, "lockScreen", "open")
            except widgetd.Error as error:
                if "MethodNotFound" in error.name:
                    self.skipTest("this widgetd has no Host.PerformAction")
                raise
            self.assertEqual(outcome.get("outcome"), "held", outcome)  # requiresAuthentication
            self.assertNotIn("open:", self.provider.log())
        finally:
            with widgetd.Client(self.daemon.socket) as c:
                c.unlock(PASSCODE)
        outcome = perform_action(self.daemon.socket, WIDGET, "lockScreen", "open")
        self.assertEqual(outcome.get("outcome"), "delivered", outcome)
        end = time.monotonic() + DEADLINE
        while "open:" not in self.provider.log():  # the provider's log is the only witness here
            self.assertLess(time.monotonic(), end, self.provider.log())
            time.sleep(0.05)

    @unittest.skipUnless(BENCH_ROUNDS, "WIDGETD_PROVIDER_BENCH=N measures N changes")
    def test_0_benchmark(self) -> None:
        now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
        samples = []
        for round_ in range(BENCH_ROUNDS):
            time.sleep(0.3)
            title = "Bench %d" % round_
            start = now + _dt.timedelta(minutes=1)  # earlier than every other event: shown first
            started = time.monotonic()
            uid = self.add(title, start - _dt.timedelta(seconds=round_ + 1), start)
            self.host.wait_for(lambda p: value(p, "title") == title, title)
            samples.append(time.monotonic() - started)
            self.remove(uid)
        report("calendar (ECal create_object to Host.Watch)", samples)
        time.sleep(1)
        idle(self.provider.process, 10)


if __name__ == "__main__":
    unittest.main()
