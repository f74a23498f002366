#!/usr/bin/python3
"""Login: the right password authenticates and unlocks widgetd (its quotes, backslash,
tab and UTF-8 intact through the module's JSON); a wrong one is refused by the stack
and never reaches widgetd."""
import sys

from testbed import PW1, PW2, run


def login(t):
    t.daemon_with_passcode(PW1)
    t.service("widgetd-test", f"socket={t.socket} debug")
    t.lock()
    t.check("the right password authenticates", t.login("widgetd-test", PW1))
    t.equal("the right password unlocks widgetd (quotes, backslash, tab, UTF-8 intact)", t.status("state"), "unlocked")
    t.lock()
    t.check("a wrong password is refused by the stack", not t.login("widgetd-test", PW2))
    t.equal("a wrong password leaves widgetd locked", t.status("state"), "locked")
    t.equal("a wrong password never reaches widgetd (failedAttempts 0)", t.status("failedAttempts"), 0)


sys.exit(run(login))
