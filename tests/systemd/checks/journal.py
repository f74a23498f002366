#!/usr/bin/python3
"""The daemon's own events reach the journal (WIDGETD_EVENT=), each at least once for
a start, a reload, a passcode, a lock, an unlock and a stop; neither the passcode nor
the content ever does."""
import sys
import time

from container import PASSCODE, SECRET, fail, passed, run

EVENTS = ["started", "passcode_set", "lock", "unlock", "reloaded", "stopping"]


def events_since(c, cursor):
    export = c.run("journalctl", "--no-pager", "-o", "export", f"--after-cursor={cursor}").stdout
    return {line.split("=", 1)[1] for line in export.splitlines() if line.startswith("WIDGETD_EVENT=")}


def journal(c):
    with c.installed():
        cursor = c.journal_cursor()
        c.call("io.widgetd.Device.GetStatus")
        c.register_provider()
        c.inside("systemctl", "reload", "widgetd.service")
        c.call("io.widgetd.Device.SetPasscode", {"new": PASSCODE})
        c.put_timeline()
        c.call("io.widgetd.Device.Lock")
        c.call("io.widgetd.Device.Unlock", {"passcode": PASSCODE})
        c.run("systemctl", "stop", "widgetd.service")
        # journald stores asynchronously: polled.
        deadline = time.monotonic() + 10
        while True:
            found = events_since(c, cursor)
            missing = [event for event in EVENTS if event not in found]
            if not missing:
                break
            if time.monotonic() >= deadline:
                fail(f"no WIDGETD_EVENT= for {' '.join(missing)} in the journal (found: {' '.join(sorted(found)) or 'none'})")
            time.sleep(0.2)
        # The whole journal, what journalctl reads and the files themselves.
        export = c.run("journalctl", "--no-pager", "-o", "export").stdout
        for leaked in (PASSCODE, SECRET):
            if leaked in export or c.succeeds("grep", "-a", "-r", "-q", "-F", leaked, "/var/log/journal", "/run/log/journal"):
                fail(f"the journal holds a secret ({leaked})")
        passed(f"journal: events [{' '.join(sorted(found))}]; neither the passcode nor the content")


sys.exit(run(journal))
