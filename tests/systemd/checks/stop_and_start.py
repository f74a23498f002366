#!/usr/bin/python3
"""systemctl stop: the daemon says STOPPING=1 and exits 0, the socket stays; the next
connection starts it afresh, before its first unlock."""
import sys

from container import PASSCODE, expect_equal, fail, passed, run


def stop_and_start(c):
    with c.installed():
        c.call("io.widgetd.Device.SetPasscode", {"new": PASSCODE})
        cursor = c.journal_cursor()
        c.run("systemctl", "stop", "widgetd.service")   # (it warns that the socket remains)
        expect_equal("widgetd.service after stop", c.service_state(), "inactive")
        expect_equal("stop result", c.unit_property("widgetd.service", "Result"), "success")
        expect_equal("exit status after stop", c.unit_property("widgetd.service", "ExecMainStatus"), "0")
        if c.journal_wait(cursor, r"Got notification message.*STOPPING=1") is None:
            fail(f"systemd received no STOPPING=1 from widgetd:\n{c.journal_since(cursor, '-u', 'widgetd.service')}")
        expect_equal("widgetd.socket after the service's stop", c.unit_property("widgetd.socket", "ActiveState"), "active")
        state = c.call("io.widgetd.Device.GetStatus")["state"]
        expect_equal("widgetd.service after a connection following the stop", c.service_state(), "active")
        expect_equal("state after a restart", state, "beforeFirstUnlock")
        passed("systemctl stop: STOPPING=1, exit 0; next connection started it in beforeFirstUnlock")


sys.exit(run(stop_and_start))
