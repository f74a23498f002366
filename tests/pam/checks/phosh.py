#!/usr/bin/python3
"""Phosh's lock screen: the `phosh` PAM service as Debian installs it. phosh, running as
the user (not root), checks its lock screen's PIN with pam_start("phosh") and
pam_authenticate alone. Debian's phosh package installs no /etc/pam.d/phosh, so libpam
reads /etc/pam.d/other, whose `@include common-auth` brings in pam-auth-update's stack
and with it pam_widgetd. This check runs those very files: a copy of this host's
/etc/pam.d (phosh's own file, where a package installed one, else none), with common-*
made by `pam-auth-update --enable widgetd` on the copy, bind-mounted over /etc/pam.d in
a private mount namespace for pamtester alone (the host's /etc/pam.d is never
written); only the module's path and socket= are filled in. Then, where phosh has a
service file of its own without common-auth, the lines pam_widgetd(8) says to add,
checked the same way."""
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys

from testbed import run

PIN = "246813"
WRONG = "135792"
INCLUDES_COMMON_AUTH = re.compile(
    r"^[ \t]*(@include[ \t]+common-auth|auth[ \t]+(include|substack)[ \t]+common-auth)([ \t]|$)", re.MULTILINE)


def pam_d_digest():
    return hashlib.sha256(subprocess.run(["tar", "-C", "/etc", "-c", "pam.d"], capture_output=True).stdout).hexdigest()


def dpkg(*arguments):
    return subprocess.run(["dpkg-query", *arguments], capture_output=True, text=True).stdout


def describe_phosh():
    if dpkg("-W", "-f=${db:Status-Status}", "phosh") != "installed":
        return "# phosh is not installed: the service is looked up as libpam would, without it"
    version = dpkg("-W", "-f=${Version}", "phosh")
    files = subprocess.run(["dpkg", "-L", "phosh"], capture_output=True, text=True).stdout.splitlines()
    if "/etc/pam.d/phosh" in files:
        return f"# the phosh package ({version}) installs /etc/pam.d/phosh"
    return f"# the phosh package ({version}) installs no /etc/pam.d/phosh: libpam reads other"


def unlock_screen(t, root, pin):
    """phosh's unlock, as phosh makes it: the user's process, the `phosh` service."""
    script = 'mount --bind "$1" /etc/pam.d && exec setpriv --reuid="$2" --regid="$3" --init-groups pamtester phosh "$4" authenticate'
    done = subprocess.run(["timeout", "30", "unshare", "-m", "--propagation", "private", "sh", "-c", script, "_",
                           f"{root}/etc/pam.d", str(t.uid), str(t.gid), t.user],
                          input=pin + "\n", capture_output=True, text=True)
    return done.returncode == 0


def phosh(t):
    before = pam_d_digest()
    root = f"{t.dir}/pam-root"
    for directory in ("etc/pam.d", "var/lib/pam", "usr/share/pam-configs"):
        os.makedirs(f"{root}/{directory}")
    subprocess.run(["cp", "-a", "/etc/pam.d/.", f"{root}/etc/pam.d/"], check=True)
    subprocess.run(["cp", "-a", "/var/lib/pam/.", f"{root}/var/lib/pam/"], check=True)
    for profile in glob.glob("/usr/share/pam-configs/*"):
        shutil.copy(profile, f"{root}/usr/share/pam-configs/")
    shutil.copy(f"{os.environ['WIDGETD_PAM_REPO']}/pam/widgetd.pam-config", f"{root}/usr/share/pam-configs/widgetd")
    print(describe_phosh())
    service = f"{root}/etc/pam.d/phosh"
    if not os.path.exists(service):
        service = f"{root}/etc/pam.d/other"
    with open(service) as file:
        t.check(f"phosh: the file serving 'phosh' ({os.path.basename(service)}) includes common-auth",
                INCLUDES_COMMON_AUTH.search(file.read()))
    subprocess.run(["pam-auth-update", "--root", root, "--force", "--enable", "widgetd"], capture_output=True,
                   env=dict(os.environ, DEBIAN_FRONTEND="noninteractive", DEBCONF_DB_REPLACE=f"File{{{t.dir}/debconf.dat}}"))

    # The user with the PIN as their password, and their widgetd with it as passcode.
    t.daemon_with_passcode(PIN)
    # The module where the user (phosh's process) can load it.
    module = f"{t.dir}/pam_widgetd.so"
    shutil.copy(t.module, module)
    os.chmod(module, 0o644)
    for common in glob.glob(f"{root}/etc/pam.d/common-*"):
        with open(common) as file:
            text = file.read()
        with open(common, "w") as file:
            file.write(re.sub(r"pam_widgetd\.so.*", f"{module} socket={t.socket}", text))

    t.lock()
    t.check("phosh: the right PIN unlocks the screen (pamtester phosh)", unlock_screen(t, root, PIN))
    t.equal("phosh: the right PIN unlocks widgetd", t.status("state"), "unlocked")
    t.lock()
    t.check("phosh: a wrong PIN is refused", not unlock_screen(t, root, WRONG))
    t.equal("phosh: a wrong PIN leaves widgetd locked", t.status("state"), "locked")
    t.equal("phosh: a wrong PIN never reaches widgetd (failedAttempts 0)", t.status("failedAttempts"), 0)

    # Where phosh has a service file of its own without common-auth: the lines
    # pam_widgetd(8) says to add, checked the same way.
    with open(f"{root}/etc/pam.d/phosh", "w") as file:
        file.write("auth [success=1 default=ignore] pam_unix.so nullok\nauth requisite pam_deny.so\n"
                   f"auth optional {module} socket={t.socket}\n")
    t.lock()
    unlock_screen(t, root, PIN)
    t.equal("phosh: a phosh file of its own with the man page's lines: the right PIN unlocks widgetd",
            t.status("state"), "unlocked")
    t.lock()
    unlock_screen(t, root, WRONG)
    t.equal("phosh: ... and a wrong PIN never reaches it", t.status("failedAttempts"), 0)
    t.equal("phosh: the host's /etc/pam.d is unchanged", pam_d_digest(), before)


sys.exit(run(phosh))
