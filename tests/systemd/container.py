#!/usr/bin/python3
"""The booted container of scripts/test-systemd, as its checks (tests/systemd/checks/) see it.

A check imports this module, takes the container the harness booted (`Container()`,
from the WIDGETD_TEST_* environment the harness exports), and starts from, and leaves
behind, the installed state (`with container.installed():` restores it): the package
installed, widgetd.socket listening, widgetd.service stopped with an empty state
directory, no provider registered, no alice and no drop-in of a test. What a check
sets up (alice, her sessions, a credential) goes with it, so that each check runs
alone and in any order.

Varlink is spoken here, in Python: parameters are built as dictionaries and replies
read as JSON, never by interpolating or grepping text. Standard library only, so
that it runs as any user with the system's /usr/bin/python3.

As a command, one Varlink call (for a call as another uid, which setpriv runs):

    container.py SOCKET METHOD [PARAMETERS_JSON]

prints the reply as one JSON object ({"parameters": ...} or {"error": ...,
"parameters": ...}) and exits 0; a connection or protocol failure exits 1. And

    container.py reset

restores the installed state, as the harness does after a check that failed.
"""
import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time

PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
HELPER = os.path.abspath(__file__)

# What the checks store and must never find in the journal.
PASSCODE = "tsd-passcode-7Qx2vK"
SECRET = "tsd-secret-value-Rk41Zp"
# A provider's user: a uid the container does not know.
PROVIDER_UID = 4242
WIDGET = "com.example.health/steps"

ALICE_UID = 1000
ALICE_LOGIN = "tsd-alice-login-9Pq"
ALICE_PASSCODE = "tsd-alice-passcode-3Jw"
ALICE_RUNTIME = f"/run/user/{ALICE_UID}"

STATE = "/var/lib/widgetd"
PROVIDER_FILE = "/etc/widgetd/providers.d/com.example.health.conf"
# Where the checks put drop-ins and files of their own; the installed state has none.
SYSTEM_DROPINS = "/run/systemd/system/widgetd.service.d"
USER_DROPINS = "/etc/systemd/user/widgetd.service.d"
TEST_FILES = ["/etc/credstore.encrypted/widgetd.device-key", "/root/device.key.aside",
              "/etc/pam.d/widgetd-test", "/usr/bin/pamtester", "/tmp/alice-watch.log"]

# The installed state: the package installed (else exit 3), no alice (her sessions,
# user manager, files and lingering gone), no daemon, no state, no test's file or drop-in.
RESET = r"""
set -e
[ "$(dpkg-query -W -f='${db:Status-Status}' widgetd 2>/dev/null)" = installed ] || exit 3
alice_uid=$1 user_dropins=$2 dropins=$3 state=$4
shift 4
for unit in widgetd.service alice-session.service alice-forged-session.service; do
    systemctl stop "$unit" 2>/dev/null || true
done
if getent passwd alice >/dev/null; then
    loginctl disable-linger alice
    loginctl terminate-user alice 2>/dev/null || true
    systemctl stop "user@$alice_uid.service"
    userdel --force --remove alice 2>/dev/null
    rm -rf /var/lib/systemd/linger/alice
fi
rm -rf "$user_dropins" "$@"
if [ -e "$dropins" ]; then rm -rf "$dropins"; systemctl daemon-reload; fi
[ ! -d "$state" ] || find "$state" -mindepth 1 -delete
systemctl reset-failed widgetd.service 2>/dev/null || true
systemctl start widgetd.socket
"""

CHECK = os.path.splitext(os.path.basename(sys.argv[0]))[0]


class CheckFailed(Exception):
    """A check's expectation that did not hold: the harness reports it and goes on."""


class VarlinkError(Exception):
    """An error reply: its name and parameters."""

    def __init__(self, name, parameters):
        super().__init__(f"{name} {json.dumps(parameters)}")
        self.name = name
        self.parameters = parameters


def varlink_call(path, method, parameters=None, timeout=60):
    """The whole reply to one call on the socket at PATH."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(timeout)
        connection.connect(path)
        request = {"method": method, "parameters": parameters or {}}
        connection.sendall(json.dumps(request).encode() + b"\0")
        buffer = b""
        while b"\0" not in buffer:
            chunk = connection.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed before a reply")
            buffer += chunk
        return json.loads(buffer.split(b"\0", 1)[0])


def parameters_of(reply):
    if "error" in reply:
        raise VarlinkError(reply["error"], reply.get("parameters", {}))
    return reply.get("parameters", {})


def log(message):
    started = float(os.environ.get("WIDGETD_TEST_T0", time.time()))
    print(f"[{int(time.time() - started):4d}s] test-systemd: {CHECK}: {message}", file=sys.stderr, flush=True)


def passed(message):
    log(f"ok: {message}")


def fail(message):
    raise CheckFailed(message)


def expect_equal(what, got, expected):
    if got != expected:
        fail(f"{what}: expected {expected!r}, got {got!r}")


def wait_for(seconds, message, condition):
    """Waits, bounded, for CONDITION() to be true; fails with MESSAGE when it never is."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() >= deadline:
            fail(f"{message} (after {seconds}s)")
        time.sleep(0.1)


def json_lines(text):
    """The JSON objects of a JSON-lines text; any other line (a warning) is skipped."""
    values = []
    for line in text.splitlines():
        try:
            values.append(json.loads(line))
        except ValueError:
            continue
    return values


class Container:
    """The container the harness booted, from the environment it exports."""

    def __init__(self):
        self.leader = os.environ["WIDGETD_TEST_LEADER"]
        self.root = os.environ["WIDGETD_TEST_ROOT"]
        self.socket = os.path.join(os.environ["WIDGETD_TEST_SOCKET_DIR"], "widgetd.sock")
        self.scratch = os.environ["WIDGETD_TEST_SCRATCH"]
        self.swtpm = os.environ.get("WIDGETD_TEST_SWTPM", "")

    # ------------------------------------------------------------ commands inside

    def entered(self, argv):
        """ARGV as it runs inside the container, in all of its namespaces, with a clean environment."""
        return ["nsenter", f"--target={self.leader}", "--all", "--", "/usr/bin/env", "-i",
                "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8", "SYSTEMD_PAGER=cat", "SYSTEMD_COLORS=0", *argv]

    def run(self, *argv, input=None, timeout=120):
        """ARGV inside the container: the finished process."""
        return subprocess.run(self.entered(argv), input=input, capture_output=True, text=True, errors="replace",
                              timeout=timeout)

    def spawn(self, *argv):
        """ARGV inside the container, in the background: the process, to be ended by the caller."""
        return subprocess.Popen(self.entered(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)

    def succeeds(self, *argv, input=None):
        return self.run(*argv, input=input).returncode == 0

    def inside(self, *argv, input=None, what=None):
        """ARGV's standard output; a failure of ARGV fails the check."""
        done = self.run(*argv, input=input)
        if done.returncode != 0:
            fail(f"{what or ' '.join(argv)} failed (exit {done.returncode}): {(done.stdout + done.stderr).strip()}")
        return done.stdout

    def write(self, path, text, user=None):
        prefix = ["runuser", "-u", user, "--"] if user else []
        self.inside(*prefix, "sh", "-c", 'cat > "$1"', "sh", path, input=text, what=f"writing {path}")

    def unit_property(self, unit, name):
        return self.inside("systemctl", "show", "-P", name, unit).strip()

    def service_state(self):
        return self.unit_property("widgetd.service", "ActiveState")

    # ------------------------------------------------------------ the journal

    def journal_cursor(self):
        output = self.run("journalctl", "--show-cursor", "-n", "0", "-q").stdout
        return output.split("-- cursor: ", 1)[1].strip()

    def journal_since(self, cursor, *arguments):
        return self.run("journalctl", "--no-pager", "-q", "-o", "short-monotonic",
                        f"--after-cursor={cursor}", *arguments).stdout

    def journal_wait(self, cursor, pattern, seconds=10):
        """widgetd.service's journal since CURSOR once it holds PATTERN (journald stores
        asynchronously), or None after SECONDS."""
        deadline = time.monotonic() + seconds
        while True:
            text = self.journal_since(cursor, "-u", "widgetd.service")
            if re.search(pattern, text, re.IGNORECASE):
                return text
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.1)

    # ------------------------------------------------------------ Varlink

    def call(self, method, parameters=None, path=None):
        """A call as root (an administrator): the reply's parameters, or VarlinkError."""
        try:
            reply = varlink_call(path or self.socket, method, parameters)
        except (OSError, ValueError) as error:
            fail(f"{method}: {error}")
        return parameters_of(reply)

    def call_as(self, uid, method, parameters=None):
        """A call from UID, which reaches the socket through the widgetd group."""
        gid = self.inside("getent", "group", "widgetd").split(":")[2]
        done = subprocess.run(
            ["setpriv", f"--reuid={uid}", f"--regid={uid}", f"--groups={gid}",
             PYTHON, HELPER, self.socket, method, json.dumps(parameters or {})],
            capture_output=True, text=True, timeout=90)
        if done.returncode != 0:
            fail(f"{method} as uid {uid}: {done.stderr.strip()}")
        return parameters_of(json.loads(done.stdout))

    def presentation(self, surface="homeScreen"):
        return self.call("io.widgetd.Host.GetPresentation", {"widget": WIDGET, "surface": surface})["presentation"]

    # ------------------------------------------------------------ the installed state

    @contextlib.contextmanager
    def installed(self):
        """The check's time from the installed state, in which the harness starts it, back
        to it, whatever the check left."""
        try:
            yield self
        finally:
            self.reset()

    def reset(self):
        """Back to the installed state, in one round trip unless the package must be
        installed again."""
        if self.run("sh", "-c", RESET, "reset", str(ALICE_UID), USER_DROPINS, SYSTEM_DROPINS, STATE,
                    PROVIDER_FILE, *TEST_FILES).returncode == 3:
            self.inside("dpkg", "-i", "/root/widgetd.deb", what="installing the package again")
            self.inside("sh", "-c", RESET, "reset", str(ALICE_UID), USER_DROPINS, SYSTEM_DROPINS, STATE,
                        PROVIDER_FILE, *TEST_FILES, what="restoring the installed state")

    def register_provider(self):
        """The provider's file in providers.d, as an administrator writes it."""
        self.write(PROVIDER_FILE, f"[Provider]\nId=com.example.health\nUser={PROVIDER_UID}\nDataProtection=complete\n")

    def timeline(self):
        """A timeline whose one entry carries SECRET in a sensitive field."""
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        return {
            "widget": WIDGET, "family": "accessoryRectangular",
            "entries": [{"date": now, "fields": {
                "title": {"value": "Steps", "privacy": "public"},
                "count": {"value": SECRET, "privacy": "sensitive"}}}],
            "policy": {"kind": "never"},
            "placeholder": {"fields": {"title": {"value": "Steps", "privacy": "public"},
                                       "count": {"value": "--"}}},
        }

    def put_timeline(self, seconds=10):
        """PutTimeline as the provider's uid, retried while its registration is on its
        way (a reload is asynchronous: systemctl returns once SIGHUP is sent)."""
        timeline = self.timeline()
        deadline = time.monotonic() + seconds
        while True:
            try:
                return self.call_as(PROVIDER_UID, "io.widgetd.Provider.PutTimeline", timeline)
            except VarlinkError as error:
                if error.name not in ("io.widgetd.ProviderNotRegistered", "io.widgetd.PermissionDenied"):
                    fail(f"PutTimeline as the provider's uid {PROVIDER_UID} failed: {error}")
                if time.monotonic() >= deadline:
                    fail(f"PutTimeline as uid {PROVIDER_UID}, {seconds} s after registering: {error}")
            time.sleep(0.1)

    def with_content(self):
        """The system daemon with a provider, PASSCODE set and SECRET stored, unlocked."""
        self.register_provider()
        self.call("io.widgetd.Device.SetPasscode", {"new": PASSCODE})
        self.put_timeline()

    # ------------------------------------------------------------ alice, a user of her own widgetd

    def as_alice(self, *argv, input=None):
        return self.run("runuser", "-u", "alice", "--", "env", f"XDG_RUNTIME_DIR={ALICE_RUNTIME}", *argv, input=input)

    def alice_inside(self, *argv, input=None, what=None):
        done = self.as_alice(*argv, input=input)
        if done.returncode != 0:
            fail(f"{what or ' '.join(argv)} (alice) failed (exit {done.returncode}): {(done.stdout + done.stderr).strip()}")
        return done.stdout

    def alice_status(self):
        """`widgetctl --json status` as alice, read."""
        return json.loads(self.alice_inside("widgetctl", "--json", "status"))

    def alice_text_status(self):
        return self.as_alice("widgetctl", "status").stdout

    def add_alice(self):
        """alice, with a lingering user manager (as after a login) and her own
        widgetd.socket enabled; her widgetd is not started yet."""
        self.inside("useradd", "--create-home", "--uid", str(ALICE_UID), "--user-group", "alice")
        self.inside("sh", "-c", f"echo 'alice:{ALICE_LOGIN}' | chpasswd", what="chpasswd for alice")
        self.inside("loginctl", "enable-linger", "alice")
        wait_for(30, f"alice's user manager (user@{ALICE_UID}.service) did not start",
                 lambda: self.succeeds("test", "-S", f"{ALICE_RUNTIME}/systemd/private"))
        # Test-only: nspawn's /proc/kmsg is a bind mount of an unlinked file, which a user
        # manager cannot replicate into the fresh /proc of a PrivateUsers= unit (ENOENT;
        # fixed in nspawn by systemd PR #41333). On a real machine ProtectKernelLogs= works.
        self.inside("mkdir", "-p", USER_DROPINS)
        self.write(f"{USER_DROPINS}/50-test-nspawn-kmsg.conf", "[Service]\nProtectKernelLogs=no\n")
        self.alice_inside("systemctl", "--user", "enable", "--now", "widgetd.socket")

    def add_alice_with_passcode(self):
        """alice's widgetd with the provider com.example.health (her own) and
        ALICE_PASSCODE set: unlocked."""
        self.add_alice()
        self.alice_inside("mkdir", "-p", "/home/alice/.config/widgetd/providers.d")
        self.write("/home/alice/.config/widgetd/providers.d/com.example.health.conf",
                   "[Provider]\nId=com.example.health\nUser=alice\nDataProtection=complete\n", user="alice")
        self.alice_inside("widgetctl", "passcode", "set", "--passcode-stdin", input=ALICE_PASSCODE + "\n")

    def alice_session_id(self):
        for line in self.run("loginctl", "list-sessions", "--no-legend").stdout.splitlines():
            fields = line.split()
            if len(fields) >= 3 and fields[2] == "alice":
                return fields[0]
        return None

    def start_session(self, unit):
        """A logind session of alice's without a terminal (class background), watched by
        her widgetd: its id and object path."""
        self.inside("systemd-run", "--quiet", f"--unit={unit}", "-p", "PAMName=login", "-p", "User=alice",
                    "-p", "Type=simple", "sleep", "infinity", what=f"systemd-run of alice's session {unit}")
        wait_for(10, "no logind session of alice's", lambda: self.alice_session_id() is not None)
        session_id = self.alice_session_id()
        wait_for(10, f"alice's widgetd does not watch her session {session_id}",
                 lambda: re.search(rf"^Sessions: .*\b{session_id}\b", self.alice_text_status(), re.MULTILINE))
        reply = self.inside("busctl", "--json=short", "call", "org.freedesktop.login1", "/org/freedesktop/login1",
                            "org.freedesktop.login1.Manager", "GetSession", "s", session_id)
        session_path = json.loads(reply)["data"][0]
        if not session_path:
            fail(f"no object path for session {session_id}")
        return session_id, session_path


def run(check):
    """Runs CHECK(container) as a check's main: exit 0 when it passed, 1 when it failed."""
    try:
        check(Container())
    except CheckFailed as failure:
        log(f"FAIL: {failure}")
        return 1
    except VarlinkError as error:
        log(f"FAIL: unexpected Varlink error {error}")
        return 1
    return 0


def main(argv):
    if argv[1:] == ["reset"]:
        try:
            Container().reset()
        except CheckFailed as failure:
            log(f"FAIL: {failure}")
            return 1
        return 0
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 64
    path, method = argv[1], argv[2]
    parameters = json.loads(argv[3]) if len(argv) == 4 else {}
    try:
        reply = varlink_call(path, method, parameters)
    except (OSError, ValueError) as error:
        print(f"container.py: {method}: {error}", file=sys.stderr)
        return 1
    print(json.dumps(reply))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
