#!/usr/bin/python3
"""enroll: without it an instance with no passcode is left without one; with it the
right login password authenticates and becomes the passcode."""
import sys

from testbed import PW1, run


def enroll(t):
    t.set_password(PW1)
    t.start_daemon()
    t.service("widgetd-test", f"socket={t.socket} debug")
    t.service("widgetd-test-enroll", f"socket={t.socket} enroll")
    t.login("widgetd-test", PW1)
    t.equal("without enroll an instance with no passcode is left without one", t.status("passcodeSet"), False)
    t.check("the right password authenticates (enroll)", t.login("widgetd-test-enroll", PW1))
    t.equal("enroll: the login password became the passcode", t.status("passcodeSet"), True)


sys.exit(run(enroll))
