#!/usr/bin/python3
"""valgrind: no leak and no uninitialised read in every path of the module:
authenticate (GetStatus, Unlock), the kept password (open_session), widgetd absent, a
listener of another uid (nothing sent), a socket path that never resolves (the child
killed), chauthtok old -> new (SetPasscode) and by root (ReportPasscodeOutOfStep),
authenticate while out of step (nothing sent), and enroll (SetPasscode new)."""
import os
import pwd
import subprocess
import sys

from testbed import PW2, PW3, PW4, run

VALGRIND = ["valgrind", "-q", "--leak-check=full", "--errors-for-leak-kinds=definite,indirect", "--error-exitcode=99"]


def under_valgrind(t, what, lines, service, *operations):
    done = subprocess.run([*VALGRIND, "pamtester", service, t.user, *operations],
                          input="".join(line + "\n" for line in lines), capture_output=True, text=True)
    if done.returncode == 0:
        return t.check(f"valgrind: {what}", True)
    detail = "" if done.returncode == 99 else f" (pamtester exited {done.returncode})"
    print(done.stdout + done.stderr)
    return t.check(f"valgrind: {what}{detail}", False)


def valgrind(t):
    t.daemon_with_passcode(PW4)
    t.service("widgetd-test", f"socket={t.socket} debug")
    t.service("widgetd-test-enroll", f"socket={t.socket} enroll")
    t.service("widgetd-test-absent", f"socket={t.dir}/none/widgetd.sock")
    t.service("widgetd-test-foreign", f"socket={t.dir}/atk/widgetd.sock")
    t.service("widgetd-test-fuse", f"socket={t.dir}/fuse/widgetd.sock")
    t.keeping_service("widgetd-test-keep", f"socket={t.socket} debug", f"{t.dir}/none/widgetd.sock")
    attacker = pwd.getpwnam(t.attacker)
    os.mkdir(f"{t.dir}/atk", 0o755)
    os.chown(f"{t.dir}/atk", attacker.pw_uid, attacker.pw_gid)
    t.peer("fake", f"{t.dir}/atk/widgetd.sock", f"{t.dir}/atk/requests", uid=attacker.pw_uid, gid=attacker.pw_gid)
    t.never_resolving(f"{t.dir}/fuse")

    t.lock()
    under_valgrind(t, "authenticate (GetStatus, Unlock)", [PW4], "widgetd-test", "authenticate")
    t.equal("valgrind: that run unlocked widgetd", t.status("state"), "unlocked")
    under_valgrind(t, "authenticate + open_session (the kept password)", [PW4], "widgetd-test-keep",
                   "authenticate", "open_session", "close_session")
    under_valgrind(t, "authenticate, widgetd absent", [PW4], "widgetd-test-absent", "authenticate")
    under_valgrind(t, "authenticate, a listener of another uid (nothing sent)", [PW4], "widgetd-test-foreign", "authenticate")
    under_valgrind(t, "authenticate, a socket path that never resolves (the child killed)", [PW4],
                   "widgetd-test-fuse", "authenticate")
    # valgrind drops a real uid that is not its effective one, so here root asks for the
    # old password the way it does for an expired one: pam_unix then asks, as for a user.
    under_valgrind(t, "chauthtok old -> new (SetPasscode)", [PW4, PW2, PW2], "widgetd-test",
                   "chauthtok(PAM_CHANGE_EXPIRED_AUTHTOK)")
    t.check("valgrind: that run changed the passcode (the new one unlocks)", t.unlock_with(PW2))
    under_valgrind(t, "chauthtok by root (ReportPasscodeOutOfStep)", [PW3, PW3], "widgetd-test", "chauthtok")
    t.equal("valgrind: those runs reached widgetd", t.status("passcodeInStep"), False)
    t.lock()
    under_valgrind(t, "authenticate while out of step (nothing sent)", [PW3], "widgetd-test", "authenticate")
    t.stop_daemon()
    t.start_daemon()
    under_valgrind(t, "authenticate with enroll (SetPasscode new)", [PW3], "widgetd-test-enroll", "authenticate")
    t.equal("valgrind: that run set the passcode", t.status("passcodeSet"), True)


sys.exit(run(valgrind))
