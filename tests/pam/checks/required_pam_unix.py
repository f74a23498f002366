#!/usr/bin/python3
"""The control matters: after `auth required pam_unix.so` (not the profile's
[success=1 default=ignore] and requisite pam_deny.so) a wrong password DOES reach
widgetd and is counted, which is what the profile's placement prevents."""
import sys

from testbed import PW4, run


def required_pam_unix(t):
    t.daemon_with_passcode(PW4)
    t.service("widgetd-test-unsafe", f"socket={t.socket}", unsafe=True)
    t.lock()
    attempts = t.status("failedAttempts")
    t.login("widgetd-test-unsafe", f"wrong-{PW4}")
    t.equal("control check: with 'required' pam_unix a wrong password would be counted",
            t.status("failedAttempts"), attempts + 1)


sys.exit(run(required_pam_unix))
