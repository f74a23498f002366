#!/usr/bin/python3
"""The first connection starts widgetd.service (Type=notify), which systemd counts as
running only after the daemon's READY=1."""
import re
import sys

from container import expect_equal, fail, passed, run

READY = r"Got notification message.*READY=1"
RUNNING = r"Changed (start|start-post) -> running"


def first_line(pattern, lines):
    return next((number for number, line in enumerate(lines) if re.search(pattern, line)), None)


def socket_activation(c):
    with c.installed():
        cursor = c.journal_cursor()
        expect_equal("widgetd.service's Type", c.unit_property("widgetd.service", "Type"), "notify")
        status = c.call("io.widgetd.Device.GetStatus")
        expect_equal("widgetd.service after the first connection", c.service_state(), "active")
        # systemd logs each sd_notify message at debug level (the harness turns it on).
        text = c.journal_wait(cursor, RUNNING) or c.journal_since(cursor, "-u", "widgetd.service")
        lines = text.splitlines()
        ready, running = first_line(READY, lines), first_line(RUNNING, lines)
        if ready is None:
            fail(f"systemd received no READY=1 from widgetd:\n{text}")
        if running is None:
            fail(f"systemd never moved widgetd.service to running:\n{text}")
        if ready >= running:
            fail("widgetd.service was running before READY=1")
        passed(f"first connection started widgetd.service; active only after READY=1 (state {status['state']})")


sys.exit(run(socket_activation))
