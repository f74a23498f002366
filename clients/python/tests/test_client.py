"""widgetd.Client against a real daemon: every call, the streams, the errors."""

from __future__ import annotations

import os
import queue
import threading
import unittest

import widgetd

from . import fixtures as fx
from .daemon import Daemon, DaemonFixture

PASSCODE = "1234"
MAIL = "com.example.mail/inbox#lock-1"
WEATHER = "com.example.weather/forecast"
HEALTH = "com.example.health/steps"


class ClientTests(DaemonFixture, unittest.TestCase):
    """One daemon with a passcode; every test leaves it unlocked."""

    daemon_lines = ("ClassAGraceSec=0",)

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        with widgetd.Client(cls.daemon.socket) as c:
            c.set_passcode(new=PASSCODE)

    def setUp(self) -> None:
        self.client = widgetd.Client(self.daemon.socket)
        self.addCleanup(self.client.close)

    def test_put_get_append_list_and_delete_a_timeline(self) -> None:
        c = self.client
        self.assertEqual(c.put_timeline(WEATHER, fx.entries(), family="systemSmall", policy="never",
                                        placeholder=fx.PLACEHOLDER), 1)
        timeline = c.get_timeline(WEATHER)
        self.assertEqual(timeline["generation"], 1)
        self.assertEqual(timeline["family"], "systemSmall")
        self.assertEqual(timeline["policy"], {"kind": "never"})
        # A datetime goes over the wire as RFC 3339 in UTC.
        self.assertEqual(timeline["entries"][0]["date"], fx.entries()[0]["date"].strftime("%Y-%m-%dT%H:%M:%SZ"))
        self.assertEqual(timeline["entries"][0]["fields"]["home"], {"value": "12 rue X", "privacy": "sensitive"})

        later = fx.entries(temperature=9)
        later[0]["date"] = fx.now()
        self.assertEqual(c.append_entries(WEATHER, later), 2)
        self.assertEqual([e["fields"]["temperature"]["value"] for e in c.get_timeline(WEATHER)["entries"]], [7, 9])

        listed = {w["widget"]: w for w in c.list_widgets()}
        self.assertEqual(listed[WEATHER]["generation"], 2)
        self.assertEqual(listed[WEATHER]["provider"], "com.example.weather")
        self.assertEqual(listed[WEATHER]["class"], "completeUntilFirstUserAuthentication")
        self.assertEqual([w["widget"] for w in c.list_widgets(provider="com.example.weather")], [WEATHER])

        c.close_timeline(WEATHER)
        c.delete_timeline(WEATHER)
        with self.assertRaises(widgetd.WidgetNotFound) as caught:
            c.get_timeline(WEATHER)
        self.assertEqual(caught.exception.widget, WEATHER)
        self.assertEqual(caught.exception.name, "io.widgetd.WidgetNotFound")
        self.assertEqual(caught.exception.parameters, {"widget": WEATHER})

    def test_fields_keep_the_order_they_were_given_in(self) -> None:
        # Neither sorted nor reversed: hosts draw fields in the timeline's order.
        order = ["zulu", "home", "alpha", "mike"]
        fields = {name: {"value": name} for name in order}
        fields["home"]["privacy"] = "sensitive"
        placeholder_order = ["mike", "home", "alpha"]
        placeholder = {"fields": {name: {"value": "-", "privacy": "public"} for name in placeholder_order}}
        c = self.client
        weather, health = WEATHER + "-order", HEALTH + "-order"
        c.put_timeline(weather, [{"date": fx.now(), "fields": fields}], placeholder=placeholder)
        self.addCleanup(c.delete_timeline, weather)
        self.assertEqual(list(c.get_timeline(weather)["entries"][0]["fields"]), order)
        self.assertEqual(list(c.get_presentation(weather, "homeScreen")["entry"]["fields"]), order)
        c.put_timeline(health, [{"date": fx.now(), "fields": fields}], placeholder=placeholder)
        self.addCleanup(c.delete_timeline, health)
        c.set_settings(lock_screen_widgets_access=False)
        self.addCleanup(c.set_settings, lock_screen_widgets_access=True)
        c.lock()
        self.addCleanup(c.unlock, PASSCODE)
        redacted = c.get_presentation(weather, "lockScreen")
        self.assertEqual(redacted["mode"], "redacted")
        self.assertEqual(list(redacted["entry"]["fields"]), order)
        shown = c.get_presentation(health, "homeScreen")
        self.assertEqual(shown["mode"], "placeholder")
        self.assertEqual(list(shown["entry"]["fields"]), placeholder_order)

    def test_status_and_settings(self) -> None:
        c = self.client
        status = c.status()
        self.assertEqual(status["state"], "unlocked")
        self.assertTrue(status["passcodeSet"])
        self.assertEqual(c.settings()["lockScreenWidgetsAccess"], True)
        changed = c.set_settings(hide_sensitive_complications="selected", hidden_complications=[WEATHER])
        self.assertEqual(changed["hideSensitiveComplications"], "selected")
        self.assertEqual(changed["hiddenComplications"], [WEATHER])
        self.assertEqual(c.set_settings(hide_sensitive_complications="off", hidden_complications=[])["hiddenComplications"], [])

    def test_one_widget_hidden_on_the_lock_screen(self) -> None:
        c = self.client
        hidden = "com.example.clock/hidden"
        c.put_timeline(hidden, fx.entries(secret="12 rue X"), policy="never", placeholder=fx.PLACEHOLDER)
        self.addCleanup(c.delete_timeline, hidden)
        changed = c.set_settings(hidden_lock_screen_widgets=[hidden])
        self.addCleanup(c.set_settings, hidden_lock_screen_widgets=[])
        self.assertEqual(changed["hiddenLockScreenWidgets"], [hidden])
        self.assertTrue(changed["lockScreenWidgetsAccess"])
        c.lock()
        self.addCleanup(c.unlock, PASSCODE)
        self.assertEqual(c.get_presentation(hidden, "lockScreen")["mode"], "redacted")
        self.assertEqual(c.get_presentation(hidden, "homeScreen")["mode"], "content")

    def test_watch_goes_content_placeholder_content_across_lock_and_unlock(self) -> None:
        c = self.client
        c.put_timeline(MAIL, fx.entries(secret="from Alice"), policy="never", placeholder=fx.PLACEHOLDER)
        with c.watch(MAIL, "lock-screen") as stream:
            first = next(stream)
            self.assertEqual((first["mode"], fx.values(first)["home"]), ("content", "from Alice"))
            c.lock()
            try:
                locked = next(stream)
                self.assertEqual(locked["mode"], "placeholder")
                self.assertEqual(fx.values(locked), {"city": "City", "temperature": 0, "home": "Address"})
                self.assertNotIn("from Alice", repr(locked))
            finally:
                c.unlock(PASSCODE)
            again = next(stream)
            self.assertEqual((again["mode"], fx.values(again)["home"]), ("content", "from Alice"))
        self.assertEqual(c.get_presentation(MAIL, "lockScreen")["mode"], "content")

    def test_closing_a_stream_ends_it(self) -> None:
        self.client.put_timeline(MAIL, fx.entries(), policy="never", placeholder=fx.PLACEHOLDER)
        stream = self.client.watch(MAIL, "homeScreen")
        self.assertEqual(next(stream)["mode"], "content")
        stream.close()
        with self.assertRaises(StopIteration):
            next(stream)
        # The client's own connection is untouched.
        self.assertEqual(self.client.status()["state"], "unlocked")

    def test_watch_reloads_hears_a_request_and_the_provider_answers_it(self) -> None:
        c = self.client
        c.put_timeline(WEATHER, fx.entries(), policy="never")
        heard: "queue.Queue[object]" = queue.Queue()
        stream = c.watch_reloads()
        self.addCleanup(stream.close)

        def listen() -> None:
            try:
                for request in stream:
                    heard.put(request)
            except widgetd.Error as error:  # handed to the test thread
                heard.put(error)

        threading.Thread(target=listen, daemon=True).start()
        request = None
        # A stream call has no first reply: ask until the stream hears the request
        # (other widgets' due reloads may come first).
        for _ in range(30):
            c.reload_timelines(provider="com.example.weather")
            try:
                while request is None:
                    heard_now = heard.get(timeout=1)
                    if heard_now == {"widget": WEATHER, "reason": "requested"}:
                        request = heard_now
                break
            except queue.Empty:
                continue
        self.assertEqual(request, {"widget": WEATHER, "reason": "requested"})
        generation = c.put_timeline(request["widget"], fx.entries(temperature=3), policy="never")
        self.assertEqual(c.get_timeline(WEATHER)["generation"], generation)
        self.assertEqual(fx.values(c.get_presentation(WEATHER, "homeScreen"))["temperature"], 3)

    def test_monitor_reports_lock_and_unlock(self) -> None:
        c = self.client
        with c.monitor() as events:
            self.assertEqual(next(events)["state"], "unlocked")
            c.lock()
            try:
                event = next(events)
                self.assertEqual((event["kind"], event["state"]), ("state", "locked"))
            finally:
                c.unlock(PASSCODE)
            self.assertEqual(next(events)["state"], "unlocked")

    def test_locked_class_a_data_is_protected_data_unavailable(self) -> None:
        c = self.client
        c.put_timeline(HEALTH, fx.entries(), policy="never")
        c.close_timeline(HEALTH)
        c.lock()
        try:
            with self.assertRaises(widgetd.ProtectedDataUnavailable):
                c.get_timeline(HEALTH)
        finally:
            c.unlock(PASSCODE)
        self.assertEqual(fx.values({"entry": c.get_timeline(HEALTH)["entries"][0]})["home"], "12 rue X")

    def test_invalid_timeline_carries_its_reason(self) -> None:
        with self.assertRaises(widgetd.InvalidTimeline) as caught:
            self.client.put_timeline(WEATHER, [{"date": "yesterday", "fields": {}}])
        self.assertIn("entries[0].date", caught.exception.reason)

    def test_too_large_carries_the_limit(self) -> None:
        c = self.client
        c.put_timeline("com.example.tiny/one", fx.entries(), policy="never")
        with self.assertRaises(widgetd.TooLarge) as caught:
            c.put_timeline("com.example.tiny/two", fx.entries())
        self.assertEqual(caught.exception.limit, 1)

    def test_other_errors_are_their_classes(self) -> None:
        c = self.client
        with self.assertRaises(widgetd.ProviderNotRegistered) as unregistered:
            c.put_timeline("com.example.nobody/x", fx.entries())
        self.assertEqual(unregistered.exception.provider, "com.example.nobody")
        c.put_timeline(HEALTH, fx.entries(), policy="never")
        with self.assertRaises(widgetd.UnavailableOnSurface) as remote:
            c.get_presentation(HEALTH, "remote")
        self.assertEqual(remote.exception.surface, "remote")
        with self.assertRaises(widgetd.WidgetNotFound):
            c.delete_timeline("com.example.weather/none")
        with self.assertRaises(widgetd.PasscodeRequired):
            c.set_passcode(new="other")  # a passcode is set: the current one is needed
        self.assertTrue(issubclass(widgetd.WrongPasscode, widgetd.Error))

    def test_a_passcode_with_quotes_backslashes_and_controls_round_trips(self) -> None:
        c = self.client
        tricky = 'a"b\\c\x01\n\u00e9'
        c.set_passcode(current=PASSCODE, new=tricky)
        try:
            c.lock()
            mine = bytearray(tricky, "utf-8")
            c.unlock(mine)
            self.assertEqual(c.status()["state"], "unlocked")
            # The caller's buffer is the caller's: copied, not zeroed under them.
            self.assertEqual(mine, bytearray(tricky, "utf-8"))
        finally:
            c.set_passcode(current=tricky.encode("utf-8"), new=PASSCODE)
        c.lock()
        c.unlock(PASSCODE)
        self.assertEqual(c.status()["state"], "unlocked")


class PasscodeAttemptsTests(DaemonFixture, unittest.TestCase):
    """Wrong passcodes, on a daemon of their own (it then refuses unlocks for a minute)."""

    def test_wrong_passcodes_count_then_try_again_later(self) -> None:
        with widgetd.Client(self.daemon.socket) as c:
            c.set_passcode(new=PASSCODE)
            c.lock()
            for attempt in range(1, 5):
                with self.assertRaises(widgetd.WrongPasscode) as caught:
                    c.unlock("wrong-%d" % attempt)
                self.assertEqual(caught.exception.failed_attempts, attempt)
                self.assertIsNone(caught.exception.retry_after)
            # The fifth failure starts a wait of a minute (DESIGN §3).
            with self.assertRaises(widgetd.WrongPasscode) as fifth:
                c.unlock("wrong-5")
            self.assertEqual(fifth.exception.failed_attempts, 5)
            self.assertGreater(fifth.exception.retry_after, 0)
            self.assertLessEqual(fifth.exception.retry_after, 60)
            with self.assertRaises(widgetd.TryAgainLater) as later:
                c.unlock(PASSCODE)
            self.assertGreater(later.exception.retry_after, 0)
            self.assertLessEqual(later.exception.retry_after, 60)
            self.assertEqual(later.exception.parameters, {"retryAfter": later.exception.retry_after})
            self.assertEqual(c.status()["failedAttempts"], 5)


class DaemonUnavailableTests(unittest.TestCase):
    """No daemon, and a daemon that stops and comes back."""

    def test_a_missing_socket_is_daemon_unavailable(self) -> None:
        path = os.path.join(os.path.dirname(__file__), "no-such-daemon.sock")
        with self.assertRaises(widgetd.DaemonUnavailable) as caught:
            widgetd.Client(path).status()
        self.assertEqual(caught.exception.parameters["socket"], path)
        self.assertEqual(caught.exception.name, "widgetd.DaemonUnavailable")
        with self.assertRaises(widgetd.DaemonUnavailable):
            widgetd.Client(path).watch(WEATHER, "homeScreen")

    def test_a_stopped_daemon_ends_streams_and_a_restarted_one_is_reached_again(self) -> None:
        daemon = Daemon()
        self.addCleanup(daemon.remove)
        daemon.start()
        c = widgetd.Client(daemon.socket)
        self.addCleanup(c.close)
        events = c.monitor()
        next(events)
        self.assertEqual(c.status()["state"], "unlocked")
        daemon.stop()
        with self.assertRaises(widgetd.DaemonUnavailable):
            next(events)
        with self.assertRaises(StopIteration):
            next(events)
        daemon.start()
        # The client sees its old connection closed and opens a new one.
        self.assertIn(c.status()["state"], ("unlocked", "beforeFirstUnlock"))


if __name__ == "__main__":
    unittest.main()
