#!/usr/bin/python3
"""root resets the password (no old one): the passcode is reported out of step and
from then on nothing is sent (no attempt counted, logged without the password) until
`widgetctl passcode change` brings it back in step."""
import sys

from testbed import PW2, PW3, run


def root_reset(t):
    syslog = t.syslog()
    t.daemon_with_passcode(PW2)
    t.service("widgetd-test", f"socket={t.socket} debug")
    t.check("chauthtok by root succeeds", t.pamtester("widgetd-test", [PW3, PW3], "chauthtok") == 0)
    t.equal("a reset by root reports the passcode out of step", t.status("passcodeInStep"), False)
    t.lock()
    attempts = t.status("failedAttempts")
    t.check("out of step: the login succeeds", t.login("widgetd-test", PW3))
    t.equal("out of step: nothing was sent (still locked)", t.status("state"), "locked")
    t.equal("out of step: no attempt counted", t.status("failedAttempts"), attempts)
    t.change_passcode(PW2, PW3)
    t.equal("widgetctl passcode change brings it back in step", t.status("passcodeInStep"), True)
    t.lock()
    t.check("back in step: the login password unlocks again", t.login("widgetd-test", PW3))
    t.equal("back in step: unlocked", t.status("state"), "unlocked")
    if syslog:
        text = syslog.text()
        t.check("syslog: out of step is logged", any("pam_widgetd" in line and "out of step" in line for line in syslog.lines))
        t.check("syslog: no password in any line", PW2 not in text and PW3 not in text)


sys.exit(run(root_reset))
