#!/usr/bin/python3
"""This host as scripts/test-pam prepares it, as its checks (tests/pam/checks/) use it.

The harness builds pam_widgetd.so, makes the stack the shipped pam-auth-update profile
gives, and adds a throwaway user (with an attacker beside them: another local account
without privilege). A check takes the `Testbed` and sets up the rest itself: the
user's password, the user's own widgetd on a fresh state directory, PAM services in
/etc/pam.d, peers that stand in for widgetd, a syslog listener; `close()` (or `with`)
removes all of it, so that each check runs alone and in any order.

The user's widgetd is read with `widgetctl --json status` and the requests a stand-in
received as JSON, here, never by grepping text.

As a command, the stand-ins for widgetd that a check starts (as root or, through
setpriv, as another uid):

    testbed.py peer MODE SOCKET LOG    fake (an in-step, locked widgetd that takes any
                                       Unlock), trickle (a byte at a time, GetStatus over
                                       0.6 s and Unlock's WrongPasscode over 2.9 s),
                                       silent (accepts, never answers) or status-only
                                       (answers GetStatus, never Unlock); every request
                                       read is appended to LOG, one per line
    testbed.py fuse MOUNTPOINT READY   a FUSE file system that never answers a lookup
"""
import contextlib
import json
import os
import pwd
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

PYTHON = "/usr/bin/python3"
HELPER = os.path.abspath(__file__)
CHECK = os.path.splitext(os.path.basename(sys.argv[0]))[0]

# Passwords that stress the JSON the module writes: quotes, a backslash, a tab, UTF-8.
PW1 = 'Fj0rd "quoted" back\\slash\ttab \u00f6\u5bc6\U0001f511'
PW2 = "Second-Pa55word!"
PW3 = "Th1rd-Reset-By-Root"
PW4 = "F0urth-Behind-PAMs-Back"


def environment(name):
    return os.environ[f"WIDGETD_PAM_{name}"]


class Testbed:
    """What the harness prepared, and what the check adds (removed by close())."""

    def __init__(self):
        self.user = environment("USER")
        self.uid, self.gid = pwd.getpwnam(self.user).pw_uid, pwd.getpwnam(self.user).pw_gid
        self.attacker = environment("ATTACKER")
        self.module = environment("MODULE")
        self.bin = environment("BIN")
        with open(environment("STACK")) as file:
            self.stack = file.read().splitlines()
        self.started = float(environment("T0"))
        self.failures = 0
        self.services = []
        self.processes = []
        self.mounts = []
        self.syslog_listener = None
        self.daemon = None
        # The check's own directory: the user reaches their socket through it.
        self.dir = tempfile.mkdtemp(prefix=f"{CHECK}.", dir=environment("TMP"))
        os.chmod(self.dir, 0o711)
        self.home = os.path.join(self.dir, "u")
        os.mkdir(self.home, 0o700)
        os.chown(self.home, self.uid, self.gid)
        self.socket = os.path.join(self.home, "widgetd.sock")
        self.log = os.path.join(self.dir, "widgetd.log")

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()

    def close(self):
        self.stop_daemon()
        for process in self.processes:
            process.kill()
            process.wait()
        # Detached: a FUSE mount whose server is gone answers ENOTCONN, even to rm.
        for mount in self.mounts:
            subprocess.run(["umount", "-l", mount], capture_output=True)
        for name in self.services:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"/etc/pam.d/{name}")
        if self.syslog_listener:
            self.syslog_listener.close()
        subprocess.run(["rm", "-rf", self.dir])

    # ------------------------------------------------------------ reporting

    def report(self, passed, what):
        elapsed = int(time.time() - self.started)
        print(f"{'ok' if passed else 'FAIL'} - {what} [{elapsed}s]", flush=True)
        if not passed:
            self.failures += 1
        return passed

    def check(self, what, condition):
        return self.report(bool(condition), what)

    def equal(self, what, got, expected):
        if got == expected:
            return self.report(True, what)
        return self.report(False, f"{what}: expected {expected!r}, got {got!r}")

    def exit_status(self):
        return 1 if self.failures else 0

    # ------------------------------------------------------------ the user and their widgetd

    def set_password(self, password):
        subprocess.run(["chpasswd"], input=f"{self.user}:{password}\n", text=True, check=True)

    def start_daemon(self, fresh=True):
        """The user's widgetd on the check's socket; a fresh state directory unless not FRESH."""
        config = os.path.join(self.home, "widgetd.conf")
        with open(config, "w") as file:
            file.write("[Daemon]\nPasscodeKDF=minimum\n")
        os.chown(config, self.uid, self.gid)
        state = os.path.join(self.home, "state")
        if fresh:
            subprocess.run(["rm", "-rf", state], check=True)
        with open(self.log, "ab") as log:
            self.daemon = subprocess.Popen(
                ["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--init-groups", "env", "-i",
                 f"HOME={self.home}", "PATH=/usr/bin:/bin", f"{self.bin}/widgetd", "--config", config,
                 "--state-directory", state, "--socket", self.socket],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        for _ in range(200):
            if self.ctl("status").returncode == 0:
                return
            time.sleep(0.05)
        with open(self.log) as file:
            sys.exit(f"widgetd did not start:\n{file.read()}")

    def stop_daemon(self):
        if self.daemon:
            self.daemon.terminate()
            self.daemon.wait()
            self.daemon = None

    def daemon_with_passcode(self, password):
        """The user's password and their widgetd's passcode both PASSWORD, in step."""
        self.set_password(password)
        self.start_daemon()
        self.ctl("passcode", "set", "--passcode-stdin", input=password + "\n", check=True)
        if self.status("passcodeInStep") is not True:
            self.change_passcode(password, password)

    def ctl(self, *arguments, input=None, check=False):
        """widgetctl as the user: the owner of a user instance is its administrator."""
        return subprocess.run(
            ["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--init-groups", f"{self.bin}/widgetctl",
             "--socket", self.socket, *arguments], input=input, capture_output=True, text=True, check=check)

    def status(self, name):
        return json.loads(self.ctl("--json", "status", check=True).stdout).get(name)

    def lock(self):
        self.ctl("lock", check=True)

    def unlock_with(self, passcode):
        self.lock()
        return self.ctl("unlock", "--passcode-stdin", input=passcode + "\n").returncode == 0

    def change_passcode(self, old, new):
        self.ctl("passcode", "change", "--passcode-stdin", input=f"{old}\n{new}\n{new}\n", check=True)

    # ------------------------------------------------------------ PAM services and pamtester

    def service(self, name, arguments, unsafe=False):
        """/etc/pam.d/NAME: the generated stack with the module's ARGUMENTS; UNSAFE: auth
        as `required pam_unix.so` (a wrong password reaches the module)."""
        self.service_file(name, "\n".join(self.stack_lines(arguments, unsafe)) + "\naccount required pam_permit.so\n")

    def keeping_service(self, name, arguments, absent):
        """/etc/pam.d/NAME as service() makes it, but auth's socket= is ABSENT: auth finds
        no instance and keeps the password, the session (the real socket) delivers it."""
        lines = [re.sub(r"socket=[^ ]*", f"socket={absent}", line, count=1) if line.startswith("auth") else line
                 for line in self.stack_lines(arguments)]
        self.service_file(name, "\n".join(lines) + "\naccount required pam_permit.so\n")

    def stack_lines(self, arguments, unsafe=False):
        if unsafe:
            return (["auth required pam_unix.so", f"auth optional {self.module} {arguments}"]
                    + [line for line in self.stack if not line.startswith("auth")])
        return [line.split("pam_widgetd.so")[0] + f"{self.module} {arguments}" if "pam_widgetd.so" in line else line
                for line in self.stack]

    def service_file(self, name, text):
        self.services.append(name)
        with open(f"/etc/pam.d/{name}", "w") as file:
            file.write(text)

    def service_without_module(self, name):
        """The generated stack without the module: what the module adds is measured against it."""
        self.service_file(name, "\n".join(line for line in self.stack if "pam_widgetd" not in line)
                          + "\naccount required pam_permit.so\n")

    def pamtester(self, service, lines, *operations, prefix=(), timeout=30):
        """pamtester SERVICE USER OPERATIONS, fed LINES: its exit status."""
        try:
            return subprocess.run([*prefix, "pamtester", service, self.user, *operations],
                                  input="".join(line + "\n" for line in lines), capture_output=True, text=True,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            return 124

    def login(self, service, password):
        """Whether authenticate through SERVICE with PASSWORD succeeded (a module that
        waited without a deadline would hang: the timeout ends that as a failure)."""
        return self.pamtester(service, [password], "authenticate") == 0

    def timed_login(self, service, password):
        """Whether it succeeded, and how long it took in ms."""
        started = time.monotonic()
        succeeded = self.login(service, password)
        return succeeded, int((time.monotonic() - started) * 1000)

    def quickest_login(self, service, password):
        """The quickest of three logins in ms (a loaded machine's pam_unix varies), or
        None when one failed."""
        best = None
        for _ in range(3):
            succeeded, elapsed = self.timed_login(service, password)
            if not succeeded:
                return None
            best = elapsed if best is None else min(best, elapsed)
        return best

    # ------------------------------------------------------------ stand-ins for widgetd

    def peer(self, mode, path, log=None, uid=None, gid=None):
        """A stand-in for widgetd listening at PATH (as root, or as UID), started and
        listening when this returns; the requests it read go to LOG."""
        log = log or os.devnull
        if log != os.devnull:
            open(log, "w").close()
            os.chmod(log, 0o666)
        user = ["--reuid=0"] if uid is None else [f"--reuid={uid}", f"--regid={gid}", "--init-groups"]
        # The system's python: another user cannot run root's (a pyenv shim under /root).
        self.processes.append(subprocess.Popen(["setpriv", *user, PYTHON, HELPER, "peer", mode, path, log]))
        wait_until(lambda: os.path.exists(path))

    def never_resolving(self, mountpoint):
        """A FUSE file system at MOUNTPOINT that never answers, as any user may mount on
        a directory of theirs: connect(2) on a path under it hangs."""
        os.mkdir(mountpoint)
        ready = mountpoint + ".ready"
        self.processes.append(subprocess.Popen([PYTHON, HELPER, "fuse", mountpoint, ready]))
        self.mounts.append(mountpoint)
        wait_until(lambda: os.path.exists(ready))

    @staticmethod
    def requests(log):
        """The requests a stand-in read, as JSON."""
        with open(log, "rb") as file:
            return [json.loads(line) for line in file.read().splitlines() if line.strip()]

    # ------------------------------------------------------------ syslog

    def syslog(self):
        """The module's syslog lines from here on: on a host without a syslog daemon (no
        /dev/log) a listener of ours takes them; with one, None (nothing to read)."""
        if self.syslog_listener is None and not os.path.exists("/dev/log"):
            self.syslog_listener = SyslogListener()
        return self.syslog_listener


class SyslogListener:
    """/dev/log, bound for the check's time: every datagram kept."""

    def __init__(self):
        self.lines = []
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.socket.bind("/dev/log")
        self.thread = threading.Thread(target=self.receive, daemon=True)
        self.thread.start()

    def receive(self):
        with contextlib.suppress(OSError):
            while True:
                self.lines.append(self.socket.recv(65536).decode(errors="replace"))

    def text(self):
        time.sleep(0.1)   # a datagram sent just before is read
        return "\n".join(self.lines)

    def close(self):
        self.socket.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink("/dev/log")


def wait_until(condition, seconds=2):
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)


def run(check):
    """Runs CHECK(testbed) as a check's main: exit 0 when every expectation held."""
    with Testbed() as testbed:
        check(testbed)
        if testbed.failures and os.path.exists(testbed.log):
            with open(testbed.log, errors="replace") as file:
                print("--- widgetd log\n" + "".join(file.readlines()[-50:]), end="")
        return testbed.exit_status()


# ---------------------------------------------------------------- the stand-ins, as commands

STATUS = b'{"parameters":{"passcodeSet":true,"passcodeInStep":true,"state":"locked","failedAttempts":0}}\0'
STATUS_UNLOCK_PENDING = b'{"parameters":{"passcodeSet":true,"passcodeInStep":true,"state":"locked"}}\0'
WRONG = b'{"error":"io.widgetd.WrongPasscode","parameters":{"failedAttempts":1}}\0'


def send(mode, connection, reply, seconds):
    if mode != "trickle":
        connection.sendall(reply)
        return
    # Each byte leaves at its place on one schedule from the start, so that a late wake-up
    # on a loaded machine delays one byte and is not added up over all of them.
    start = time.monotonic()
    with contextlib.suppress(OSError):   # the module gave up at its deadline
        for index, byte in enumerate(reply):
            connection.sendall(bytes([byte]))
            time.sleep(max(0, start + seconds * (index + 1) / len(reply) - time.monotonic()))


def serve(mode, connection, log):
    buffer = b""
    while True:
        while b"\0" not in buffer:
            data = connection.recv(4096)
            if not data:
                return
            buffer += data
        request, buffer = buffer.split(b"\0", 1)
        with open(log, "ab") as file:
            file.write(request + b"\n")
        method = json.loads(request).get("method", "")
        if mode == "status-only":
            if method.endswith(".GetStatus"):
                connection.sendall(STATUS_UNLOCK_PENDING)
        elif method.endswith(".GetStatus"):
            send(mode, connection, STATUS, 0.6)
        elif method.endswith(".Unlock"):
            send(mode, connection, b"{}\0" if mode == "fake" else WRONG, 2.9)
        elif mode == "fake":
            connection.sendall(b"{}\0")
        else:
            time.sleep(3600)


def peer(mode, path, log):
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    listener.listen(8)
    os.chmod(path, 0o777)
    connections = []
    while True:
        connection = listener.accept()[0]
        connections.append(connection)   # silent: accepts, reads nothing, answers nothing
        if mode != "silent":
            threading.Thread(target=serve, args=(mode, connection, log), daemon=True).start()


def fuse(mountpoint, ready):
    import ctypes
    descriptor = os.open("/dev/fuse", os.O_RDWR)
    libc = ctypes.CDLL(None, use_errno=True)
    options = f"fd={descriptor},rootmode=40000,user_id=0,group_id=0,allow_other".encode()
    if libc.mount(b"widgetd-test", mountpoint.encode(), b"fuse", 6, options) != 0:   # MS_NOSUID|MS_NODEV
        sys.exit("mount: " + os.strerror(ctypes.get_errno()))
    open(ready, "w").close()
    time.sleep(3600)   # never reads /dev/fuse: every lookup under the mount waits


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "peer":
        peer(*sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "fuse":
        fuse(*sys.argv[2:])
    else:
        sys.exit(__doc__)
