#!/usr/bin/python3
"""The login password changed behind PAM's back (chpasswd): the first login with it is
one counted attempt, which marks the passcode out of step (logged, without the
password); after that nothing is sent."""
import sys

from testbed import PW3, PW4, run


def changed_behind_pam(t):
    syslog = t.syslog()
    t.daemon_with_passcode(PW3)
    t.service("widgetd-test", f"socket={t.socket} debug")
    t.set_password(PW4)
    t.lock()
    attempts = t.status("failedAttempts")
    t.login("widgetd-test", PW4)
    t.equal("a login password widgetd refuses is counted once", t.status("failedAttempts"), attempts + 1)
    t.equal("... and marks the passcode out of step", t.status("passcodeInStep"), False)
    t.login("widgetd-test", PW4)
    t.equal("... after which nothing is sent (no second attempt)", t.status("failedAttempts"), attempts + 1)
    if syslog:
        text = syslog.text()
        t.check("syslog: a refused login password is logged",
                any("pam_widgetd" in line and "widgetd refused the login password" in line for line in syslog.lines))
        t.check("syslog: no password in any line", PW3 not in text and PW4 not in text)


sys.exit(run(changed_behind_pam))
