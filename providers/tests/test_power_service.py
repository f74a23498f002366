"""widgetd-provider-power against upowerd on a mocked sysfs (umockdev) and a private
system bus: run under ``umockdev-wrapper`` (scripts/test-providers does)."""

from __future__ import annotations

import os
import time
import unittest

import widgetd

from .services import BENCH_ROUNDS, Host, ProviderProcess, idle, report, start_daemon, value
from .sources import Battery

WIDGET = "org.widgetd.power/battery"


class PowerServiceTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.battery = Battery()
        cls.testbed = cls.battery.testbed
        cls.daemon = start_daemon()
        cls.provider = ProviderProcess("widgetd-provider-power", cls.daemon.socket, cls.daemon.root,
                                       {"DBUS_SYSTEM_BUS_ADDRESS": cls.battery.bus_address})
        cls.host = Host(cls.daemon.socket, WIDGET, "lockScreen")

    @classmethod
    def tearDownClass(cls) -> None:
        cls.host.close()
        status = cls.provider.stop()
        if os.environ.get("WIDGETD_PROVIDER_TEST_LOGS"):
            print(cls.provider.log(), cls.daemon.log())
        cls.daemon.remove()
        cls.battery.close()
        assert status == 0, "the provider did not exit cleanly on SIGTERM:\n" + cls.provider.log()

    def set_level(self, energy_now: str) -> None:
        self.battery.set_level(energy_now)

    def test_1_the_battery_is_a_gauge_and_follows_level_changes(self) -> None:
        shown = self.host.wait_for(lambda p: value(p, "gauge") == 0.8, "at 80 %")
        self.assertEqual(shown["mode"], "content")
        self.assertEqual(value(shown, "state"), "discharging")
        self.assertTrue(value(shown, "icon").startswith("battery-"))
        latencies = []
        for energy, level in (("30000000", 0.5), ("12000000", 0.2), ("48000000", 0.8)):
            started = time.monotonic()
            self.set_level(energy)
            self.host.wait_for(lambda p: value(p, "gauge") == level, "at %g" % level)
            latencies.append(time.monotonic() - started)
        print("power: source change to host, seconds: %s" % ", ".join("%.3f" % s for s in latencies))

    def test_2_upowerd_stopping_shows_the_placeholder_and_its_return_the_battery(self) -> None:
        self.host.wait_for(lambda p: value(p, "gauge") is not None, "with a gauge")
        self.battery.stop_upowerd()
        self.host.wait_for(lambda p: p["mode"] == "placeholder", "as the placeholder")
        self.battery.start_upowerd()
        self.host.wait_for(lambda p: p["mode"] == "content" and value(p, "gauge") is not None, "with a gauge again")
        self.assertTrue(self.provider.alive())

    def test_3_widgetd_restarting_gets_the_timeline_again(self) -> None:
        self.host.wait_for(lambda p: value(p, "gauge") == 0.8, "at 80 %")
        self.daemon.stop()
        self.set_level("30000000")  # while widgetd is away
        self.daemon.start()
        self.host.wait_for(lambda p: value(p, "gauge") == 0.5, "at 50 % after the restart")
        self.assertIn("connected to widgetd", self.provider.log())
        self.set_level("48000000")
        self.host.wait_for(lambda p: value(p, "gauge") == 0.8, "at 80 % again")


    def generation(self) -> int:
        with widgetd.Client(self.daemon.socket) as c:
            return c.get_timeline(WIDGET)["generation"]

    def test_4_only_changes_are_written_and_at_a_bounded_rate(self) -> None:
        self.set_level("48000000")
        self.host.wait_for(lambda p: value(p, "gauge") == 0.8, "at 80 %")
        before = self.generation()
        for _ in range(5):  # uevents that change nothing the widget shows
            self.testbed.uevent(self.battery.device, "change")
        self.set_level("30000000")
        self.host.wait_for(lambda p: value(p, "gauge") == 0.5, "at 50 %")
        self.assertEqual(self.generation(), before + 1)

        before = self.generation()
        started = time.monotonic()
        for percent in range(21, 61):  # 40 changes as fast as the testbed makes them
            self.set_level(str(percent * 600000))
        self.host.wait_for(lambda p: value(p, "gauge") == 0.6, "at the last level, 60 %")
        elapsed = time.monotonic() - started
        writes = self.generation() - before
        # The bucket: a burst of 4, then 4 a second (link.py), plus the one in flight.
        self.assertLessEqual(writes, 4 + 4 * elapsed + 1, "%d writes in %.2fs" % (writes, elapsed))
        print("power: 40 changes in a burst, %d writes over %.2fs" % (writes, elapsed))

    @unittest.skipUnless(BENCH_ROUNDS, "WIDGETD_PROVIDER_BENCH=N measures N changes")
    def test_9_benchmark(self) -> None:
        self.host.wait_for(lambda p: value(p, "gauge") is not None, "with a gauge")
        samples = []
        for round_ in range(BENCH_ROUNDS):
            energy, level = (("30000000", 0.5), ("36000000", 0.6))[round_ % 2]
            time.sleep(0.3)  # past the write bucket's refill: each change stands alone
            started = time.monotonic()
            self.set_level(energy)
            self.host.wait_for(lambda p: value(p, "gauge") == level, "at %g" % level)
            samples.append(time.monotonic() - started)
        report("power (umockdev uevent to Host.Watch)", samples)
        idle(self.provider.process, 10)


if __name__ == "__main__":
    unittest.main()
