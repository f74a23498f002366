#!/usr/bin/python3
"""The user changes the password (ruid the user, euid root: what passwd, setuid root,
is when a user runs it): old -> new re-wraps the passcode, in step."""
import sys

from testbed import PW1, PW2, run


def user_chauthtok(t):
    t.daemon_with_passcode(PW1)
    t.service("widgetd-test", f"socket={t.socket} debug")
    t.lock()
    changed = t.pamtester("widgetd-test", [PW1, PW2, PW2], "chauthtok", prefix=("setpriv", f"--ruid={t.uid}"))
    t.check("chauthtok as the user succeeds", changed == 0)
    t.check("the new password unlocks", t.login("widgetd-test", PW2))
    t.equal("the new password unlocks (state)", t.status("state"), "unlocked")
    t.check("the old passcode no longer unlocks", not t.unlock_with(PW1))
    t.ctl("unlock", "--passcode-stdin", input=PW2 + "\n")
    t.equal("in step after the change", t.status("passcodeInStep"), True)


sys.exit(run(user_chauthtok))
