#!/usr/bin/python3
"""As root (pamtester here, login for real) the module connects with the user's
credentials: the unlock widgetd logged came from the user's uid, and no call from root."""
import re
import sys

from testbed import PW1, run


def connects_as_user(t):
    t.daemon_with_passcode(PW1)
    t.service("widgetd-test", f"socket={t.socket} debug")
    t.lock()
    t.login("widgetd-test", PW1)
    t.equal("the module unlocked widgetd", t.status("state"), "unlocked")
    with open(t.log) as file:
        log = file.read()
    t.check("the module connects as the user, never as root",
            re.search(rf"event=unlock .*peer\.uid={t.uid}\b", log) and not re.search(r"peer\.uid=0\b", log))


sys.exit(run(connects_as_user))
