#!/usr/bin/python3
"""The kept password: auth finds no instance (its socket= names none) and sends
nothing; the session, which finds one, delivers the password auth kept."""
import sys

from testbed import PW1, run


def kept_password(t):
    t.daemon_with_passcode(PW1)
    t.keeping_service("widgetd-test-keep", f"socket={t.socket} debug", f"{t.dir}/none/widgetd.sock")
    t.lock()
    t.login("widgetd-test-keep", PW1)
    t.equal("auth without a listening instance sends nothing (still locked)", t.status("state"), "locked")
    t.pamtester("widgetd-test-keep", [PW1], "authenticate", "open_session", "close_session")
    t.equal("a password kept in auth is delivered by open_session", t.status("state"), "unlocked")


sys.exit(run(kept_password))
