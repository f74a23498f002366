#!/usr/bin/python3
"""Who listens: the module talks only to the user's or root's socket (SO_PEERCRED).
Another local account (no privilege) listening where socket= points receives nothing,
not even GetStatus, and the login goes on (logged, with the path and the uid, no
password); root's listener (root may administer any instance) receives the Unlock."""
import os
import pwd
import sys

from testbed import PW1, run


def listener_uid(t):
    syslog = t.syslog()
    t.set_password(PW1)
    attacker = pwd.getpwnam(t.attacker)
    t.service("widgetd-test-foreign", f"socket={t.dir}/atk/widgetd.sock")
    t.service("widgetd-test-root", f"socket={t.dir}/root.sock")
    os.mkdir(f"{t.dir}/atk", 0o755)
    os.chown(f"{t.dir}/atk", attacker.pw_uid, attacker.pw_gid)
    t.peer("fake", f"{t.dir}/atk/widgetd.sock", f"{t.dir}/atk/requests", uid=attacker.pw_uid, gid=attacker.pw_gid)
    t.check("a listener of another uid: the stack still succeeds", t.login("widgetd-test-foreign", PW1))
    t.equal("a listener of another uid receives nothing (no GetStatus, no password)",
            t.requests(f"{t.dir}/atk/requests"), [])

    t.peer("fake", f"{t.dir}/root.sock", f"{t.dir}/root-requests")
    t.check("a listener of root: the stack succeeds", t.login("widgetd-test-root", PW1))
    methods = [request.get("method") for request in t.requests(f"{t.dir}/root-requests")]
    t.check(f"a listener of root receives the Unlock ({methods})", "io.widgetd.Device.Unlock" in methods)

    if syslog:
        text = syslog.text()
        t.check("syslog: a listener of another uid is logged", any(
            "pam_widgetd" in line and f"{t.dir}/atk/widgetd.sock" in line and f" uid {attacker.pw_uid}" in line
            for line in syslog.lines))
        t.check("syslog: no password in any line", PW1 not in text)


sys.exit(run(listener_uid))
