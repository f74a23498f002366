#!/usr/bin/python3
"""The watchdog: a daemon that stops answering (SIGSTOP) is killed and restarted by
systemd, and comes back before its first unlock. A short watchdog for this check only
(a drop-in), so that the hang is noticed in seconds."""
import sys

from container import PASSCODE, SYSTEM_DROPINS, expect_equal, fail, passed, run, wait_for


def watchdog(c):
    with c.installed():
        c.call("io.widgetd.Device.SetPasscode", {"new": PASSCODE})
        c.inside("mkdir", "-p", SYSTEM_DROPINS)
        c.write(f"{SYSTEM_DROPINS}/50-test-watchdog.conf", "[Service]\nWatchdogSec=2s\n")
        c.inside("systemctl", "daemon-reload")
        c.inside("systemctl", "restart", "widgetd.service")
        c.call("io.widgetd.Device.GetStatus")
        old_pid = c.unit_property("widgetd.service", "MainPID")
        restarts = int(c.unit_property("widgetd.service", "NRestarts"))
        cursor = c.journal_cursor()
        c.inside("systemctl", "kill", "--kill-whom=main", "--signal=SIGSTOP", "widgetd.service")
        wait_for(30, "the watchdog did not restart a stopped widgetd",
                 lambda: int(c.unit_property("widgetd.service", "NRestarts")) > restarts
                 and c.service_state() == "active"
                 and c.unit_property("widgetd.service", "MainPID") != old_pid)
        if c.journal_wait(cursor, "watchdog timeout") is None:
            fail(f"widgetd restarted, but not by the watchdog:\n{c.journal_since(cursor, '-u', 'widgetd.service')}")
        expect_equal("state after the watchdog restart", c.call("io.widgetd.Device.GetStatus")["state"], "beforeFirstUnlock")
        passed(f"watchdog: SIGSTOPped daemon killed and restarted "
               f"(PID {old_pid} -> {c.unit_property('widgetd.service', 'MainPID')})")


sys.exit(run(watchdog))
