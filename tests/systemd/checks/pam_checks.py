#!/usr/bin/python3
"""Unlocking with the login password (DESIGN §8), with the packaged pam_widgetd.so
and a test PAM service built as the pam-auth-update profile places it (after
pam_unix's [success=1 default=ignore] and requisite pam_deny.so): the right login
password unlocks alice's widgetd, a wrong one never reaches it (no attempt counted);
her own password change re-wraps old -> new; a reset by root marks the passcode out
of step and counts nothing. pamtester is copied from the host (bookworm's, needing
only libpam), not bootstrapped; without it the check is skipped, and says so."""
import re
import shutil
import sys

from container import ALICE_LOGIN, ALICE_PASSCODE, expect_equal, fail, log, passed, run

MODULE = "/lib/x86_64-linux-gnu/security/pam_widgetd.so"
SERVICE = """\
auth	[success=1 default=ignore]	pam_unix.so nullok
auth	requisite	pam_deny.so
auth	required	pam_permit.so
auth	optional	pam_widgetd.so
account	required	pam_permit.so
password	[success=1 default=ignore]	pam_unix.so obscure yescrypt
password	requisite	pam_deny.so
password	required	pam_permit.so
password	optional	pam_widgetd.so
"""
CHANGED = "Qz7#Rw!mKp2&Yv"
RESET = "Bx4%Hn*uJf6^Wy"


def pam(c, lines, *argv):
    """pamtester inside the container, fed LINES: whether it succeeded."""
    done = c.run("timeout", "20", *argv, input="".join(line + "\n" for line in lines))
    return done.returncode == 0


def field(c, name):
    return c.alice_status().get(name)


def lock(c):
    c.alice_inside("widgetctl", "lock")


def pam_checks(c):
    pamtester = shutil.which("pamtester")
    if not pamtester:
        log("skipped: unlocking with the login password (pamtester is not installed: apt-get install pamtester)")
        return
    with c.installed():
        c.add_alice_with_passcode()
        if not c.succeeds("test", "-f", MODULE):
            fail(f"the package did not install {MODULE}")
        if not c.succeeds("test", "-f", "/usr/share/pam-configs/widgetd"):
            fail("the package did not install the pam-auth-update profile")
        shutil.copy(pamtester, f"{c.root}/usr/bin/pamtester")
        c.write("/etc/pam.d/widgetd-test", SERVICE)

        # In step first: the passcode becomes her login password (what enroll would do).
        c.alice_inside("widgetctl", "passcode", "change", "--passcode-stdin",
                       input=f"{ALICE_PASSCODE}\n{ALICE_LOGIN}\n{ALICE_LOGIN}\n")
        lock(c)
        attempts = field(c, "failedAttempts")
        if pam(c, ["not-her-password"], "pamtester", "widgetd-test", "alice", "authenticate"):
            fail("pamtester authenticate accepted a wrong password")
        expect_equal("state after a wrong login password", field(c, "state"), "locked")
        expect_equal("failedAttempts after a wrong login password", field(c, "failedAttempts"), attempts)
        if not pam(c, [ALICE_LOGIN], "pamtester", "widgetd-test", "alice", "authenticate"):
            fail("pamtester authenticate with alice's password failed")
        expect_equal("state after the right login password", field(c, "state"), "unlocked")

        # Her own change (ruid alice, euid root: what setuid passwd is): old -> new.
        if not pam(c, [ALICE_LOGIN, CHANGED, CHANGED], "setpriv", "--ruid=1000", "pamtester", "widgetd-test", "alice", "chauthtok"):
            fail("pamtester chauthtok as alice failed")
        lock(c)
        if not pam(c, [CHANGED], "pamtester", "widgetd-test", "alice", "authenticate"):
            fail("pamtester authenticate with the changed password failed")
        expect_equal("state after the changed password", field(c, "state"), "unlocked")
        lock(c)
        if c.as_alice("widgetctl", "unlock", "--passcode-stdin", input=ALICE_LOGIN + "\n").returncode == 0:
            fail("the old password still unlocks alice's widgetd after chauthtok")
        expect_equal("passcodeInStep after her own change", field(c, "passcodeInStep"), True)

        # Root resets it (no old password): out of step, and from then on nothing is sent.
        if not pam(c, [RESET, RESET], "pamtester", "widgetd-test", "alice", "chauthtok"):
            fail("pamtester chauthtok by root failed")
        expect_equal("passcodeInStep after a reset by root", field(c, "passcodeInStep"), False)
        status = c.alice_text_status()
        if not re.search(r"^Passcode: *out of step with the login password", status, re.MULTILINE):
            fail(f"widgetctl status does not say the passcode is out of step: {status}")
        attempts = field(c, "failedAttempts")
        if not pam(c, [RESET], "pamtester", "widgetd-test", "alice", "authenticate"):
            fail("pamtester authenticate with the reset password failed")
        expect_equal("state after a login while out of step", field(c, "state"), "locked")
        expect_equal("failedAttempts after a login while out of step", field(c, "failedAttempts"), attempts)
        passed(f"PAM: the login password unlocks, a wrong one is never sent (failedAttempts {attempts} unchanged); "
               "chauthtok old -> new re-wraps; a reset by root -> out of step, nothing sent")


sys.exit(run(pam_checks))
