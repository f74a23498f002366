#!/usr/bin/python3
"""widgetd absent (nothing listens where socket= points): the login goes on at once.
What the module adds is measured against the same stack without it, the quickest of
three runs each, so that a loaded machine's pam_unix does not count against it."""
import sys

from testbed import PW1, run


def widgetd_absent(t):
    t.set_password(PW1)
    t.service_without_module("widgetd-test-none")
    t.service("widgetd-test-absent", f"socket={t.dir}/none/widgetd.sock")
    base = t.quickest_login("widgetd-test-none", PW1)
    absent = t.quickest_login("widgetd-test-absent", PW1)
    t.check("widgetd absent: the stack still succeeds", absent is not None)
    t.check(f"widgetd absent: no delay ({absent} ms, {base} ms without the module)",
            absent is not None and base is not None and absent - base < 300)


sys.exit(run(widgetd_absent))
