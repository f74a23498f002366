"""widgetd-provider-media against mpv with mpv-mpris, driven by playerctl, on the
session bus of ``dbus-run-session`` (scripts/test-providers runs it so)."""

from __future__ import annotations

import os
import queue
import random
import shutil
import subprocess
import sys
import threading
import time
import unittest

import widgetd

from .services import BENCH_ROUNDS, PASSCODE, Host, idle, report, ProviderProcess, actions, perform_action, redacted, start_daemon, value
from .sources import MPRIS_PLUGIN, start_player

WIDGET = "org.widgetd.media/nowPlaying"
TITLE = "A Song"


def playerctl(*arguments: str) -> str:
    return subprocess.run(["playerctl", "--player=mpv", *arguments], capture_output=True, text=True,
                          timeout=30).stdout.strip()


@unittest.skipUnless(os.environ.get("DBUS_SESSION_BUS_ADDRESS") and shutil.which("mpv") and shutil.which("playerctl")
                     and os.path.exists(MPRIS_PLUGIN), "needs a session bus, mpv, mpv-mpris and playerctl")
class MediaServiceTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.mpv = None
        cls.daemon = start_daemon()
        with widgetd.Client(cls.daemon.socket) as c:
            c.set_passcode(new=PASSCODE)
        cls.provider = ProviderProcess("widgetd-provider-media", cls.daemon.socket, cls.daemon.root)
        cls.host = Host(cls.daemon.socket, WIDGET, "lockScreen")
        # The source absent: the placeholder, no error.
        cls.host.wait_for(lambda p: p["mode"] == "placeholder", "as the placeholder before any player")
        cls.start_mpv(TITLE)

    @classmethod
    def start_mpv(cls, title: str) -> None:
        cls.mpv = start_player(title)

    @classmethod
    def stop_mpv(cls) -> None:
        if cls.mpv is not None:
            cls.mpv.terminate()
            cls.mpv.wait()
            cls.mpv = None

    @classmethod
    def tearDownClass(cls) -> None:
        cls.host.close()
        status = cls.provider.stop()
        if os.environ.get("WIDGETD_PROVIDER_TEST_LOGS"):
            print(cls.provider.log(), cls.daemon.log())
        cls.stop_mpv()
        cls.daemon.remove()
        assert status == 0, "the provider did not exit cleanly on SIGTERM:\n" + cls.provider.log()

    def setUp(self) -> None:
        with widgetd.Client(self.daemon.socket) as c:
            c.set_settings(lock_screen_widgets_access=True)
        playerctl("play")
        self.host.wait_for(lambda p: value(p, "state") == "Playing" and value(p, "title") == TITLE, "playing")

    def test_1_play_and_pause_are_followed_with_the_toggle(self) -> None:
        latencies = []
        for command, state, on in (("pause", "Paused", False), ("play", "Playing", True)) * 3:
            started = time.monotonic()
            playerctl(command)
            shown = self.host.wait_for(lambda p: value(p, "state") == state, state)
            latencies.append(time.monotonic() - started)
            toggle = [a for a in actions(shown) if a["id"] == "playPause"]
            self.assertEqual(len(toggle), 1)
            self.assertEqual((toggle[0]["kind"], toggle[0]["isOn"], toggle[0]["authentication"]),
                             ("toggle", on, "alwaysAllowed"))
        print("media: source change to host, seconds: %s" % ", ".join("%.3f" % s for s in sorted(latencies)))
        self.assertIsNotNone(value(shown, "position"))

    def test_2_title_and_artist_are_redacted_on_a_locked_lock_screen_when_the_settings_say_so(self) -> None:
        with widgetd.Client(self.daemon.socket) as c:
            c.set_settings(lock_screen_widgets_access=False)
            c.lock()
        try:
            shown = self.host.wait_for(lambda p: p["mode"] == "redacted", "redacted")
            self.assertTrue(redacted(shown, "title"))
            self.assertNotEqual(value(shown, "title"), TITLE)
            self.assertEqual(value(shown, "state"), "Playing")
        finally:
            with widgetd.Client(self.daemon.socket) as c:
                c.set_settings(lock_screen_widgets_access=True)
                c.unlock(PASSCODE)

    def test_3_the_toggle_performed_while_locked_pauses_the_real_player(self) -> None:
        with widgetd.Client(self.daemon.socket) as c:
            c.lock()
        try:
            try:
                outcome = perform_action(self.daemon.socket, WIDGET, "lockScreen", "playPause")
            except widgetd.Error as error:
                if "MethodNotFound" in error.name:
                    self.skipTest("this widgetd has no Host.PerformAction")
                raise
            self.assertEqual(outcome.get("outcome"), "delivered", outcome)
            self.host.wait_for(lambda p: value(p, "state") == "Paused", "paused by the action")
            self.assertEqual(playerctl("status"), "Paused")
            self.assertIn("action playPause (while locked): Pause", self.provider.log())
        finally:
            with widgetd.Client(self.daemon.socket) as c:
                c.unlock(PASSCODE)

    def test_4_the_player_quitting_and_returning_is_followed(self) -> None:
        type(self).stop_mpv()
        self.host.wait_for(lambda p: p["mode"] == "placeholder", "as the placeholder once mpv quit")
        type(self).start_mpv("Another \u202eSong\x1b[31m " + "x" * 100_000)
        shown = self.host.wait_for(lambda p: (value(p, "title") or "").startswith("Another Song"),
                                   "with the new player's cleaned title")
        self.assertLessEqual(len(value(shown, "title")), 120)
        self.assertTrue(self.provider.alive())
        log = self.provider.log()
        self.assertNotIn("Another", log)
        self.assertEqual(log.count("xesam:title: too long"), 1, log)
        type(self).stop_mpv()
        type(self).start_mpv(TITLE)

    def test_5_widgetd_restarting_gets_the_timeline_again(self) -> None:
        self.daemon.stop()
        playerctl("pause")
        self.daemon.start()
        with widgetd.Client(self.daemon.socket) as c:
            c.unlock(PASSCODE)
        self.host.wait_for(lambda p: value(p, "state") == "Paused", "paused after the restart")


    def test_6_a_player_sending_the_wrong_types_is_shown_without_them(self) -> None:
        playerctl("pause")
        self.host.wait_for(lambda p: value(p, "state") == "Paused", "paused")
        hostile = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "hostile_player.py"), "hostile"],
                                   stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(hostile.stdout.readline().strip(), "ready")
            shown = self.host.wait_for(lambda p: value(p, "title") == "Unknown title", "the liar's state, cleaned")
            self.assertEqual(value(shown, "state"), "Playing")
            self.assertIsNone(value(shown, "artist"))
            self.assertIsNone(value(shown, "position"))
            self.assertEqual([a["id"] for a in actions(shown)], ["playPause"])  # CanGoNext "yes" is not true
            self.assertTrue(self.provider.alive())
            log = self.provider.log()
            self.assertEqual(log.count("xesam:title: not text (int)"), 1, log)
        finally:
            hostile.terminate()
            hostile.wait()
            hostile.stdout.close()
        self.host.wait_for(lambda p: value(p, "title") == TITLE, "mpv again once the liar quit")

    @unittest.skipUnless(BENCH_ROUNDS, "WIDGETD_PROVIDER_BENCH=N measures N changes")
    def test_9_benchmark(self) -> None:
        """Pause/Play called on the player to the host holding the new state, and, in the
        same rounds, the floor: when the player itself announced it. mpv-mpris gathers
        property changes and emits them from a 100 ms timer (``g_timeout_source_new(100)``
        in its mpris.c), so its signal lags the call by 0-100 ms whatever follows it;
        each round waits a random extra time, so that rounds do not keep one phase of
        that timer."""
        from gi.repository import Gio
        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        announcements = PlaybackAnnouncements()
        totals, floors, ours = [], [], []
        try:
            for round_ in range(BENCH_ROUNDS):
                method, state = (("Pause", "Paused"), ("Play", "Playing"))[round_ % 2]
                time.sleep(0.3 + random.random() * 0.1)
                announcements.clear()
                started = time.monotonic()
                bus.call_sync("org.mpris.MediaPlayer2.mpv", "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player",
                              method, None, None, Gio.DBusCallFlags.NONE, 5000, None)
                self.host.wait_for(lambda p: value(p, "state") == state, state)
                announced = announcements.wait_for(state)
                totals.append(self.host.latest_arrived - started)
                floors.append(announced - started)
                ours.append(self.host.latest_arrived - announced)
        finally:
            announcements.stop()
        report("media (MPRIS Pause/Play to Host.Watch)", totals)
        report("media floor (MPRIS Pause/Play to mpv-mpris's PropertiesChanged)", floors, "call to signal")
        report("media (mpv-mpris's PropertiesChanged to Host.Watch)", ours, "signal to host")
        playerctl("pause")
        self.host.wait_for(lambda p: value(p, "state") == "Paused", "paused")
        idle(self.provider.process, 10)


class PlaybackAnnouncements:
    """When the player announced each PlaybackStatus (``PropertiesChanged``), seen on a
    bus connection of its own, in a thread of its own with its own main context."""

    def __init__(self) -> None:
        self._seen: "queue.Queue[tuple]" = queue.Queue()
        self._ready = threading.Event()
        self._loop = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait(30)

    def _run(self) -> None:
        from gi.repository import Gio, GLib
        context = GLib.MainContext.new()
        context.push_thread_default()
        bus = Gio.DBusConnection.new_for_address_sync(
            os.environ["DBUS_SESSION_BUS_ADDRESS"],
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)

        def changed(_bus, _sender, _path, _interface, _signal, parameters) -> None:
            interface, properties, _ = parameters.unpack()
            if interface == "org.mpris.MediaPlayer2.Player" and "PlaybackStatus" in properties:
                self._seen.put((time.monotonic(), properties["PlaybackStatus"]))

        bus.signal_subscribe(None, "org.freedesktop.DBus.Properties", "PropertiesChanged", "/org/mpris/MediaPlayer2",
                             None, Gio.DBusSignalFlags.NONE, changed)
        self._loop = GLib.MainLoop.new(context, False)
        # Ready once the loop runs: the subscription is then in place on the bus.
        started = GLib.idle_source_new()
        started.set_callback(lambda *_: self._ready.set() or False)
        started.attach(context)
        self._loop.run()
        bus.close_sync(None)

    def clear(self) -> None:
        while not self._seen.empty():
            self._seen.get_nowait()

    def wait_for(self, status: str) -> float:
        """When the player announced ``status`` (since the last ``clear``)."""
        deadline = time.monotonic() + 30
        while True:
            at, seen = self._seen.get(timeout=max(deadline - time.monotonic(), 0.01))
            if seen == status:
                return at

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.quit()
        self._thread.join(10)

if __name__ == "__main__":
    unittest.main()
