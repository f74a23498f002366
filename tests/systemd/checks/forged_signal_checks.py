#!/usr/bin/python3
"""DESIGN §8, only logind speaks for logind, under Debian's own bus policy: an
unprivileged user (nobody) addresses Session.Lock, PrepareForSleep(true) and
SessionRemoved to alice's widgetd by its unique name (busctl emit --destination),
which the system bus delivers. Each is refused (session_signal_refused in her journal,
the barrier: all three were handled), she stays unlocked, and logind's own
lock-session still locks her (the forged SessionRemoved did not end the watch)."""
import sys

from container import ALICE_PASSCODE, ALICE_UID, fail, passed, run, wait_for


def refusals(c):
    return len(c.run("journalctl", "--no-pager", "-q", "-o", "cat", f"_UID={ALICE_UID}",
                     "WIDGETD_EVENT=session_signal_refused").stdout.splitlines())


def state(c):
    return c.alice_status().get("state")


def forged_signal_checks(c):
    with c.installed():
        c.add_alice_with_passcode()
        session_id, session_path = c.start_session("alice-forged-session")
        c.alice_inside("widgetctl", "lock")
        c.alice_inside("widgetctl", "unlock", "--passcode-stdin", input=ALICE_PASSCODE + "\n")
        # Any client may ask the bus who is connected: alice's widgetd's unique name.
        destination = next((fields[0] for fields in map(str.split, c.inside("busctl", "list", "--unique", "--no-legend").splitlines())
                            if len(fields) >= 4 and fields[2] == "widgetd" and fields[3] == "alice"), None)
        if destination is None:
            fail("alice's widgetd is not on the system bus")
        before = refusals(c)
        forgeries = [
            ("Lock", [session_path, "org.freedesktop.login1.Session", "Lock"]),
            ("PrepareForSleep", ["/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForSleep", "b", "true"]),
            ("SessionRemoved", ["/org/freedesktop/login1", "org.freedesktop.login1.Manager", "SessionRemoved", "so",
                                session_id, session_path]),
        ]
        for name, signal in forgeries:
            c.inside("runuser", "-u", "nobody", "--", "busctl", "emit", f"--destination={destination}", *signal,
                     what=f"busctl emit ({name}) as nobody")
        wait_for(10, "alice's widgetd did not refuse the three forged signals (session_signal_refused)",
                 lambda: refusals(c) >= before + 3)
        if state(c) != "unlocked":
            fail(f"a forged signal from nobody changed alice's widgetd: {c.alice_text_status()}")
        c.inside("loginctl", "lock-session", session_id)
        wait_for(10, "after the forgeries, logind's own lock-session no longer locks alice's widgetd",
                 lambda: state(c) == "locked")
        c.inside("systemctl", "stop", "alice-forged-session.service")
        passed(f"forged logind signals: Lock, PrepareForSleep(true), SessionRemoved sent by nobody to {destination} "
               "are refused; alice stays unlocked; logind's lock-session still locks")


sys.exit(run(forged_signal_checks))
