#!/usr/bin/python3
"""widgetd hanging: one that accepts and never answers holds the login for the 1 s
status deadline, one that answers GetStatus and never the Unlock for the 3 s unlock
deadline, and not much longer; the stack still succeeds, and the module says so in
syslog (without the password). The lower bounds prove it did reach the socket: the
deadline less 300 ms, as pam_unix alone varies by that much from the best of three it
is compared to; the upper ones leave room for a loaded machine."""
import sys

from testbed import PW1, run


def widgetd_hanging(t):
    syslog = t.syslog()
    t.set_password(PW1)
    t.service_without_module("widgetd-test-none")
    t.service("widgetd-test-slow", f"socket={t.dir}/slow.sock")
    t.service("widgetd-test-slow-unlock", f"socket={t.dir}/slow-unlock.sock")
    base = t.quickest_login("widgetd-test-none", PW1) or 0

    t.peer("silent", f"{t.dir}/slow.sock")
    succeeded, slow = t.timed_login("widgetd-test-slow", PW1)
    t.check("widgetd hanging: the stack still succeeds", succeeded)
    t.check(f"widgetd hanging: bounded by the 1 s status deadline ({slow} ms, {base} ms without the module)",
            700 <= slow - base < 3000)

    t.peer("status-only", f"{t.dir}/slow-unlock.sock")
    succeeded, slow = t.timed_login("widgetd-test-slow-unlock", PW1)
    t.check("widgetd not answering Unlock: the stack still succeeds", succeeded)
    t.check(f"widgetd not answering Unlock: bounded by the 3 s unlock deadline ({slow} ms, {base} ms without the module)",
            2700 <= slow - base < 5000)

    if syslog:
        text = syslog.text()
        t.check("syslog: a hanging widgetd is logged", any(
            "pam_widgetd" in line and f"GetStatus on {t.dir}/slow.sock failed" in line for line in syslog.lines))
        t.check("syslog: no password in any line", PW1 not in text)


sys.exit(run(widgetd_hanging))
