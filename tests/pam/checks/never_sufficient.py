#!/usr/bin/python3
"""Never what lets a login through: misplaced as `sufficient` before pam_deny, with the
right password (pam_unix as optional hands it over) it unlocks widgetd, returns
PAM_IGNORE, and pam_deny still refuses the login."""
import sys

from testbed import PW1, run


def never_sufficient(t):
    t.daemon_with_passcode(PW1)
    t.service_file("widgetd-test-sufficient",
                   f"auth optional pam_unix.so\nauth sufficient {t.module} socket={t.socket}\n"
                   "auth requisite pam_deny.so\naccount required pam_permit.so\n")
    t.lock()
    t.check("the module never makes a login succeed (sufficient)", not t.login("widgetd-test-sufficient", PW1))
    t.equal("... though it did unlock widgetd there", t.status("state"), "unlocked")


sys.exit(run(never_sufficient))
