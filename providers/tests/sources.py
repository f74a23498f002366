"""The real services the providers read, started for a test: shared by the service
tests (scripts/test-providers) and by the lock-screen check inside phosh
(scripts/test-phosh, tests/phosh/check.py), so that both run the providers against
the same sources, set up the same way. Nothing here is a mock:

- ``Battery``: upowerd on a sysfs mocked by umockdev, with a private dbus-daemon as its
  system bus (the process must run under ``umockdev-wrapper``);
- ``start_player``: mpv with mpv-mpris as the MPRIS player (a session bus needed);
- ``add_event``: an event in evolution-data-server's local calendar, from a process of
  its own (the session bus activates the services).

``umockdev-wrapper python3 -m tests.sources battery`` (from providers/) runs a Battery
for a test in another process: it prints ``DBUS_SYSTEM_BUS_ADDRESS=...`` once upowerd is
started and stops everything when its standard input ends or it is terminated.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from typing import List, Optional

UPOWERD = "/usr/libexec/upowerd"
MPRIS_PLUGIN = "/usr/lib/mpv-mpris/mpris.so"
EDS_ADD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "eds_add.py")
#: The battery's energy: full 60 Wh of 80 design, now 48 Wh, that is 80 %.
BATTERY_ATTRIBUTES = ["type", "Battery", "present", "1", "status", "Discharging", "energy_full", "60000000",
                      "energy_full_design", "80000000", "energy_now", "48000000", "voltage_now", "12000000"]


class Battery:
    """upowerd on a umockdev testbed with one battery (80 %), on a private system bus."""

    def __init__(self) -> None:
        import gi
        gi.require_version("UMockdev", "1.0")
        from gi.repository import UMockdev
        self.testbed = UMockdev.Testbed.new()
        self.device = self.testbed.add_device("power_supply", "BAT0", None, BATTERY_ATTRIBUTES, [])
        self.bus = subprocess.Popen(["dbus-daemon", "--session", "--print-address", "--nofork"],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.bus_address = self.bus.stdout.readline().strip()
        self.upowerd: Optional[subprocess.Popen] = None
        self.start_upowerd()

    def start_upowerd(self) -> None:
        # The testbed sets UMOCKDEV_DIR in the C environment only, not in os.environ.
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.bus_address, UMOCKDEV_DIR=self.testbed.get_root_dir())
        self.upowerd = subprocess.Popen([UPOWERD], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop_upowerd(self) -> None:
        if self.upowerd is not None:
            self.upowerd.terminate()
            self.upowerd.wait()
            self.upowerd = None

    def set_level(self, energy_now: str) -> None:
        self.testbed.set_attribute(self.device, "energy_now", energy_now)
        self.testbed.uevent(self.device, "change")

    def close(self) -> None:
        self.stop_upowerd()
        self.bus.terminate()
        self.bus.wait()


#: What mpv plays by default: a 10-minute tone (mpv knows its length only roughly).
TONE = "av://lavfi:sine=f=440:d=600"


def silence(path: str, seconds: int) -> str:
    """A WAV file of ``seconds`` of silence (8 kHz, 8 bits): a track whose length mpv
    knows exactly, for a position that can be set and shown exactly."""
    import wave
    with wave.open(path, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(8000)
        out.writeframes(b"\x80" * 8000 * seconds)
    return path


def player_command(title: str, media: str = TONE) -> List[str]:
    """mpv playing ``media`` as ``title``, with no output, its MPRIS plugin loaded."""
    return ["mpv", "--no-config", "--script=" + MPRIS_PLUGIN, "--ao=null", "--vo=null", "--idle=no",
            "--force-media-title=" + title, media]


def start_player(title: str, media: str = TONE) -> subprocess.Popen:
    return subprocess.Popen(player_command(title, media), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def add_event(summary: str, start: int, end: int, location: str = "", timeout: float = 60) -> str:
    """Adds an event (Unix times) to the local calendar; returns its uid."""
    arguments = [sys.executable, EDS_ADD, summary, str(start), str(end)] + ([location] if location else [])
    return subprocess.run(arguments, check=True, timeout=timeout, stdout=subprocess.PIPE,
                          text=True).stdout.strip()


def _serve_battery() -> int:
    battery = Battery()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        print("DBUS_SYSTEM_BUS_ADDRESS=" + battery.bus_address, flush=True)
        sys.stdin.read()  # until the caller closes it (or ends)
    finally:
        battery.close()
    return 0


if __name__ == "__main__":
    if sys.argv[1:] != ["battery"]:
        sys.exit("usage: umockdev-wrapper python3 -m tests.sources battery")
    sys.exit(_serve_battery())
