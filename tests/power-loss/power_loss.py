#!/usr/bin/python3
"""Power cuts at random points under a real widgetd, on powercut-fs.

    power_loss.py --widgetd BIN --fs BIN [--seed N] [--cuts N] [--no-directed] [--torn] [--credential-key]
                  [--forget-fdatasync | --forget-fsync | --forget-dirsync | --forget-dirsync-of DIR] [--keep]

The daemon's state directory is a directory it makes itself in a powercut-fs mount (see
powercut-fs.c): at each cut the daemon is SIGKILLed (at a random moment, or by the file
system itself at the Nth operation of some kind), the file system is unmounted, which
forgets everything not made durable (with --torn: keeps part of it), and the daemon is
started again on what is left. The first cuts are chosen (DIRECTED: each step of a wipe,
a passcode change, a delete, the fold at an orderly stop, a wrong passcode's count);
then, between random cuts, several provider connections write timelines at once (small
ones, or large ones that fill the journal and make it fold), and a cycle may also
change the passcode, try wrong passcodes, delete widgets or wipe. --credential-key
supplies the device key as a systemd credential, which a wipe cannot remove.

After each restart the checker demands: the daemon starts; every acknowledged write is
there with its exact generation and content (a write in flight at the cut may be there
or not, nothing else); every acknowledged passcode change holds (the new passcode
unlocks, the old one does not); no answered failed unlock attempt is forgotten; an
acknowledged Wipe stays wiped (and one in flight is all or nothing); no file is torn
(every stored widget reads, ListWidgets lists exactly the stored ones, the log reports
no damage); the journal really ran (no journal_unavailable in the log).

Exit status: 0 all cuts passed; 3 a promise was broken (the finding is printed, with
the seed to reproduce it); 1 the harness itself failed. Standard library only, so that
it runs with the system's /usr/bin/python3.
"""
import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

PROVIDERS = [
    ("com.example.health", "complete"),
    ("com.example.mail", "completeUnlessOpen"),
    ("com.example.weather", "completeUntilFirstUserAuthentication"),
    ("com.example.clock", "none"),
]
# Log events that mean a file the daemon wrote did not read back whole.
DAMAGE_EVENTS = ["timeline_unreadable", "index_failed", "store_failure", "settings_unreadable", "checkpoint_failed"]
# The state directory's name in the mount.
STATE_NAME = "widgetd"
WRITERS = 4
WIDGETS_PER_WRITER = 3
ABSENT = "absent"


class Finding(Exception):
    """A broken durability promise: the test's purpose."""


class VarlinkError(Exception):
    def __init__(self, name, parameters):
        super().__init__(f"{name} {json.dumps(parameters)}")
        self.name = name
        self.parameters = parameters


class Connection:
    """A raw Varlink client: JSON objects terminated by NUL over AF_UNIX."""

    def __init__(self, path, timeout=30):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.settimeout(timeout)
        self.socket.connect(path)
        self.buffer = b""

    def call(self, method, parameters=None):
        request = {"method": method, "parameters": parameters or {}}
        self.socket.sendall(json.dumps(request).encode() + b"\0")
        while b"\0" not in self.buffer:
            chunk = self.socket.recv(1 << 20)
            if not chunk:
                raise ConnectionError("connection closed before a reply")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        reply = json.loads(message)
        if "error" in reply:
            raise VarlinkError(reply["error"], reply.get("parameters", {}))
        return reply.get("parameters", {})

    def close(self):
        self.socket.close()


def normalized(value):
    """JSON without nulls (an absent optional and a null one mean the same)."""
    if isinstance(value, dict):
        return {k: normalized(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [normalized(v) for v in value]
    return value


def log(message):
    print(f"[{time.monotonic() - START:6.1f}s] {message}", flush=True)


START = time.monotonic()


class PowerCutFS:
    """One powercut-fs mount at a time over `backing`; unmounting is the power cut."""

    def __init__(self, binary, work, flags, torn_rng=None):
        self.binary, self.flags, self.torn_rng = binary, flags, torn_rng
        self.backing = os.path.join(work, "backing")
        self.shadow = os.path.join(work, "shadow")
        self.mountpoint = os.path.join(work, "state")
        self.control = os.path.join(work, "control")
        self.stats_file = os.path.join(work, "fs-stats")
        self.stderr = open(os.path.join(work, "fs.log"), "ab")
        for d in (self.backing, self.shadow, self.mountpoint):
            os.makedirs(d, exist_ok=True)
        os.chmod(self.backing, 0o700)
        self.process = None
        # A full disk (powercut-fs --full, toggled by SIGUSR2): now, and at the next mount.
        self.full = False
        self.full_at_mount = False

    def set_full(self, full):
        """Makes the file system full (no write may grow a file) or gives it room again."""
        if self.full != full:
            os.kill(self.process.pid, signal.SIGUSR2)
            self.full = full

    def mount(self):
        shutil.rmtree(self.shadow)
        os.mkdir(self.shadow)
        with open(self.control, "w"):
            pass
        torn = ["--torn", str(self.torn_rng.randrange(2**31))] if self.torn_rng else []
        full = ["--full"] if self.full_at_mount else []
        self.full, self.full_at_mount = self.full_at_mount, False
        self.process = subprocess.Popen(
            [self.binary, *self.flags, *torn, *full, "--control", self.control, "--stats", self.stats_file,
             self.backing, self.shadow, self.mountpoint],
            stderr=self.stderr)
        deadline = time.monotonic() + 10
        while not os.path.ismount(self.mountpoint):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("powercut-fs did not mount (see fs.log)")
            time.sleep(0.01)

    def where(self):
        """Where the file system's process waits, for a report."""
        details = []
        for name in ("wchan", "stack"):
            try:
                with open(f"/proc/{self.process.pid}/{name}") as f:
                    details.append(f"{name}: {f.read().strip()}")
            except OSError as error:
                details.append(f"{name}: {error}")
        return "; ".join(details)

    def arm(self, pid, kind, count):
        """SIGKILL `pid` at the `count`-th next operation of `kind`."""
        with open(self.control, "w") as f:
            f.write(f"{pid} {kind} {count}\n")
        os.kill(self.process.pid, signal.SIGUSR1)

    def cut(self):
        """Unmounts (the power cut); returns the file system's statistics."""
        for _ in range(100):
            if subprocess.run(["fusermount3", "-u", self.mountpoint], stderr=subprocess.DEVNULL).returncode == 0:
                break
            time.sleep(0.05)
        else:
            raise RuntimeError("cannot unmount powercut-fs")
        try:
            # Generous: the rebuild is quick, but this machine may be shared with builds.
            status = self.process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"powercut-fs did not exit after the unmount: {self.where()}")
        if status != 0:
            raise RuntimeError("powercut-fs failed (see fs.log)")
        with open(self.stats_file) as f:
            return dict(pair.split("=") for pair in f.read().split())


class Daemon:
    def __init__(self, binary, work):
        self.binary = binary
        self.work = work
        self.config = os.path.join(work, "etc", "widgetd.conf")
        self.socket_path = os.path.join(work, "run", "widgetd.sock")
        self.log_path = os.path.join(work, "widgetd.log")
        os.makedirs(os.path.join(work, "etc", "providers.d"))
        os.makedirs(os.path.join(work, "run"))
        with open(self.config, "w") as f:
            f.write("[Daemon]\nPasscodeKDF=minimum\nIdleTimeoutSec=0\n")
        for provider, protection in PROVIDERS:
            with open(os.path.join(work, "etc", "providers.d", f"{provider}.conf"), "w") as f:
                f.write(f"[Provider]\nId={provider}\nUser=0\nDataProtection={protection}\n")
        self.process = None
        self.log_offset = 0
        self.credentials = None

    def use_credential_key(self):
        """Supplies the device key as a systemd credential (which a Wipe cannot destroy)."""
        self.credentials = os.path.join(self.work, "credentials")
        os.makedirs(self.credentials)
        path = os.path.join(self.credentials, "device-key")
        with open(path, "wb") as f:
            f.write(os.urandom(32))
        os.chmod(path, 0o400)

    def start(self, state_directory):
        notify_path = os.path.join(self.work, "notify")
        if os.path.exists(notify_path):
            os.unlink(notify_path)
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        notify.settimeout(0.2)
        env = {k: v for k, v in os.environ.items() if k not in ("JOURNAL_STREAM", "LISTEN_FDS", "CREDENTIALS_DIRECTORY")}
        env["NOTIFY_SOCKET"] = notify_path
        if self.credentials:
            env["CREDENTIALS_DIRECTORY"] = self.credentials
        self.log_offset = os.path.getsize(self.log_path) if os.path.exists(self.log_path) else 0
        with open(self.log_path, "ab") as out:
            self.process = subprocess.Popen(
                [self.binary, "--config", self.config, "--state-directory", state_directory, "--socket", self.socket_path],
                stdout=out, stderr=out, env=env)
        deadline = time.monotonic() + 60
        try:
            while time.monotonic() < deadline:
                try:
                    if b"READY=1" in notify.recv(4096):
                        return
                except socket.timeout:
                    pass
                if self.process.poll() is not None:
                    raise Finding(f"the daemon did not start after the cut (exit {self.process.returncode}):\n{self.log_tail()}")
            raise Finding(f"the daemon did not become ready in 60 s:\n{self.log_tail()}")
        finally:
            notify.close()

    def signal_kill(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        if self.process:
            self.process.wait()

    def new_log(self):
        with open(self.log_path, "rb") as f:
            f.seek(self.log_offset)
            return f.read().decode(errors="replace")

    def log_tail(self):
        return "\n".join(self.new_log().splitlines()[-15:])

    def connect(self):
        return Connection(self.socket_path)


class Widget:
    """What the checker knows of one widget: its acknowledged state and, for an
    operation in flight at the cut, the other state it may be found in."""

    def __init__(self, name, writer):
        self.name, self.writer = name, writer
        self.acked = ABSENT          # ABSENT or (generation, entries)
        self.inflight = None         # None, ABSENT or (generation, entries)
        # The generation a timeline written after a delete builds on: the store's catalog
        # keeps the deleted one, so that no file from before the delete passes for newer.
        # None when unknown (a Wipe in flight at a cut that may or may not have happened).
        self.floor = 0


class Oracle:
    def __init__(self):
        self.widgets = {}
        for w in range(WRITERS):
            for k in range(WIDGETS_PER_WRITER):
                provider = PROVIDERS[(w + k) % len(PROVIDERS)][0]
                name = f"{provider}/w{w}-{k}"
                self.widgets[name] = Widget(name, w)
        self.passcode = None          # the acknowledged passcode
        self.passcode_inflight = None  # (old, new) of a SetPasscode without a reply
        self.previous_passcode = None  # replaced by an acknowledged change this cycle
        self.wipe_inflight = False
        self.wipe_landed = False       # the in-flight Wipe's passcode removal is visible
        self.wipe_missed = False       # the passcode the in-flight Wipe would remove is still set
        self.acked_failures = 0        # failed attempts the last WrongPasscode reply counted
        self.kept_failures = 0         # failed attempts the restarted daemon still counted
        self.acked_writes = 0
        self.errors = []


def timeline_entries(rng, big, token):
    """A timeline whose content names its write; large ones fill the journal fast."""
    # A field value holds at most 16 KiB: a large timeline is many of them.
    size = rng.randint(20_000, 150_000) if big else rng.randint(100, 3_000)
    fields = {"headline": {"value": token}}
    for i in range(0, size, 15_000):
        fields[f"pad{i // 15_000}"] = {"value": rng.randbytes(min(15_000, size - i) // 2 + 1).hex()}
    return [
        {"date": "2026-01-01T00:00:00Z", "fields": fields},
        {"date": "2030-01-01T00:00:00Z", "fields": {
            "headline": {"value": token + "-later"}, "secret": {"value": token[::-1], "privacy": "sensitive"}}},
    ]


def put(connection, oracle, widget, rng, big):
    """One PutTimeline, recorded in flight before it is sent and acknowledged after."""
    if widget.acked is not ABSENT:
        expected = widget.acked[0] + 1
    else:
        expected = None if widget.floor is None else widget.floor + 1
    entries = timeline_entries(rng, big, f"{widget.name}#{expected}@{time.monotonic_ns()}")
    widget.inflight = (expected, entries)
    reply = connection.call("io.widgetd.Provider.PutTimeline", {
        "widget": widget.name, "family": "systemSmall", "entries": entries})
    if expected is None and isinstance(reply.get("generation"), int) and reply["generation"] > 0:
        expected = reply["generation"]
    if reply.get("generation") != expected:
        oracle.errors.append(f"{widget.name}: PutTimeline answered generation {reply.get('generation')}, expected {expected}")
    widget.acked, widget.inflight = (expected, entries), None
    oracle.acked_writes += 1


def delete(connection, widget):
    if widget.acked is not ABSENT:
        widget.floor = widget.acked[0]
    widget.inflight = ABSENT
    connection.call("io.widgetd.Provider.DeleteTimeline", {"widget": widget.name})
    widget.acked, widget.inflight = ABSENT, None


class Writer(threading.Thread):
    """One provider connection writing its own widgets one after the other."""

    def __init__(self, index, daemon, oracle, rng, big, stop, pause):
        super().__init__(daemon=True)
        self.index, self.daemon, self.oracle, self.rng = index, daemon, oracle, rng
        self.big, self.stop_event, self.pause = big, stop, pause
        self.idle = threading.Event()
        self.widgets = [w for w in oracle.widgets.values() if w.writer == index]
        self.sequence = 0

    def run(self):
        try:
            connection = self.daemon.connect()
        except OSError:
            return
        try:
            while not self.stop_event.is_set():
                if self.pause.is_set():
                    self.idle.set()
                    time.sleep(0.005)
                    continue
                self.idle.clear()
                widget = self.widgets[self.sequence % len(self.widgets)]
                self.sequence += 1
                if widget.acked is not ABSENT and self.rng.random() < 0.03:
                    delete(connection, widget)
                else:
                    put(connection, self.oracle, widget, self.rng, self.big)
        except VarlinkError as error:
            # An error reply is not an acknowledgement; the write may still be found or not.
            self.oracle.errors.append(f"writer {self.index}: {error}")
        except (OSError, ConnectionError, ValueError):
            pass  # the cut
        finally:
            self.idle.set()
            connection.close()


def unlock_check(daemon, oracle, status):
    """Checks the passcode promises after a restart; leaves the device unlocked."""
    candidates = [oracle.passcode]
    if oracle.passcode_inflight:
        candidates.append(oracle.passcode_inflight[1])
    if oracle.wipe_inflight:
        candidates.append(None)
    if not status["passcodeSet"]:
        if None not in candidates:
            raise Finding("the passcode is gone after the cut (acknowledged: set)")
        # A passcode a Wipe in flight took away: the wipe happened, all of it.
        oracle.wipe_landed = oracle.wipe_inflight and oracle.passcode is not None
        oracle.passcode = None
        return
    if oracle.passcode is None and not oracle.passcode_inflight:
        raise Finding("a passcode is set after the cut, but none was acknowledged and none was being set")
    # The passcode a Wipe in flight would have removed is there: the wipe did not happen, none of it.
    oracle.wipe_missed = oracle.wipe_inflight
    connection = daemon.connect()
    try:
        # Passcodes that must not (or need not) unlock first: the one an acknowledged change replaced.
        if oracle.previous_passcode is not None and oracle.previous_passcode != oracle.passcode:
            try:
                connection.call("io.widgetd.Device.Unlock", {"passcode": oracle.previous_passcode})
                raise Finding("the passcode an acknowledged SetPasscode replaced still unlocks after the cut")
            except VarlinkError as error:
                if error.name != "io.widgetd.WrongPasscode":
                    raise Finding(f"Unlock with the old passcode: unexpected {error}")
        for passcode in [c for c in candidates if c is not None]:
            try:
                connection.call("io.widgetd.Device.Unlock", {"passcode": passcode})
                if passcode != oracle.passcode:
                    oracle.passcode = passcode  # the change in flight landed
                return
            except VarlinkError as error:
                if error.name != "io.widgetd.WrongPasscode":
                    raise Finding(f"Unlock: unexpected {error}")
        raise Finding("the acknowledged passcode does not unlock after the cut")
    finally:
        connection.close()


def observe(daemon, oracle):
    """Every widget's state as the restarted daemon serves it."""
    connection = daemon.connect()
    observed = {}
    try:
        for name in oracle.widgets:
            try:
                reply = connection.call("io.widgetd.Provider.GetTimeline", {"widget": name})
                observed[name] = (reply["generation"], normalized(reply["entries"]))
            except VarlinkError as error:
                if error.name != "io.widgetd.WidgetNotFound":
                    raise Finding(f"{name}: GetTimeline after the cut failed: {error} (a torn file?)")
                observed[name] = ABSENT
        listed = connection.call("io.widgetd.Host.ListWidgets")["widgets"]
    finally:
        connection.close()
    present = {name for name, state in observed.items() if state is not ABSENT}
    listed_names = {w["widget"] for w in listed}
    if listed_names != present:
        raise Finding(f"ListWidgets lists {sorted(listed_names ^ present)} differently from GetTimeline after the cut")
    for w in listed:
        if observed[w["widget"]][0] != w["generation"]:
            raise Finding(f"{w['widget']}: ListWidgets says generation {w['generation']}, GetTimeline {observed[w['widget']][0]}")
    return observed


def same(state, expected):
    if expected is ABSENT or state is ABSENT:
        return state is expected
    return expected[0] in (None, state[0]) and state[1] == normalized(expected[1])


def check_widgets(oracle, observed):
    def explain(widget, state):
        def short(s):
            return "absent" if s is ABSENT else f"generation {s[0]}"
        return (f"{widget.name}: found {short(state)}, acknowledged {short(widget.acked)}"
                + (f" (in flight: {short(widget.inflight)})" if widget.inflight is not None else ""))

    if oracle.wipe_inflight:
        # All or nothing: every widget as acknowledged, or every widget gone.
        # (A write may still be in flight: the cut can come while the writers pause.)
        before = all(same(observed[n], w.acked) or (w.inflight is not None and same(observed[n], w.inflight))
                     for n, w in oracle.widgets.items())
        after = all(observed[n] is ABSENT for n in oracle.widgets)
        if oracle.wipe_missed and not before:
            bad = [explain(w, observed[n]) for n, w in oracle.widgets.items() if not same(observed[n], w.acked)]
            raise Finding("a Wipe cut short did not happen (its passcode is still set), yet an acknowledged write "
                          "is lost: " + "; ".join(bad[:4]))
        if oracle.wipe_landed and not after:
            raise Finding("a Wipe cut short removed the passcode but left timelines readable")
        if not (before or after):
            bad = [explain(w, observed[n]) for n, w in oracle.widgets.items() if not same(observed[n], w.acked)]
            raise Finding("a Wipe cut short left some widgets and not others: " + "; ".join(bad[:4]))
        return
    for name, widget in oracle.widgets.items():
        state = observed[name]
        if same(state, widget.acked):
            continue
        if widget.inflight is not None and same(state, widget.inflight):
            continue
        if widget.acked is not ABSENT and state is not ABSENT and state[0] == widget.acked[0]:
            raise Finding(f"{name}: generation {state[0]} after the cut holds other content than was acknowledged")
        raise Finding("an acknowledged write is lost: " + explain(widget, state))


def settle(oracle, observed):
    """What was found becomes what is known: the next cycle starts from it."""
    for name, widget in oracle.widgets.items():
        widget.acked, widget.inflight = observed[name], None
        if oracle.wipe_inflight:
            # Landed: a new store and catalog; missed: the same; else not known.
            widget.floor = 0 if oracle.wipe_landed else widget.floor if oracle.wipe_missed else None
    oracle.passcode_inflight = None
    oracle.previous_passcode = None
    oracle.wipe_inflight = False
    oracle.wipe_landed = False
    oracle.wipe_missed = False


def restart_and_check(fs, daemon, oracle, cycle):
    fs.mount()
    # A directory the daemon makes itself on its first start, as it does without
    # systemd's StateDirectory=: its entry in the mount's root must be durable too.
    daemon.start(os.path.join(fs.mountpoint, STATE_NAME))
    connection = daemon.connect()
    try:
        status = connection.call("io.widgetd.Device.GetStatus")
    finally:
        connection.close()
    # A failed attempt is counted durably before its answer: a power cut must not undo it
    # (or cutting the power would reset the brute-force delays).
    if status["failedAttempts"] < oracle.acked_failures:
        raise Finding(f"failed unlock attempts went from {oracle.acked_failures} (answered) to "
                      f"{status['failedAttempts']} after the cut")
    oracle.acked_failures = 0  # the unlock below resets them
    oracle.kept_failures = status["failedAttempts"]
    unlock_check(daemon, oracle, status)
    observed = observe(daemon, oracle)
    if cycle >= 0:
        check_widgets(oracle, observed)
    if oracle.errors:
        raise Finding("the daemon answered a write wrongly: " + "; ".join(oracle.errors[:3]))
    settle(oracle, observed)
    text = daemon.new_log()
    if "event=journal_unavailable" in text:
        raise Finding("the daemon ran without its journal (journal_unavailable): the real write path was not tested")
    for event in DAMAGE_EVENTS:
        if f"event={event}" in text:
            line = next(l for l in text.splitlines() if f"event={event}" in l)
            raise Finding(f"the daemon found damage after the cut (a torn file?): {line}")
    recovered = 0
    for line in text.splitlines():
        if "event=journal_recovered" in line or "event=journal_unfolded" in line:
            recovered = next((int(p.split("=")[1]) for p in line.split() if p.startswith("records=")), -1)
    return recovered


def run_cycle(cycle, rng, fs, daemon, oracle):
    """One stretch of work ended by a power cut. Returns a description."""
    big = rng.random() < 0.4
    event = rng.choice(["writes", "passcode", "passcode", "wipe", "wrong-passcode"])
    if event == "wrong-passcode" and oracle.passcode is None:
        event = "passcode"
    stop, pause = threading.Event(), threading.Event()
    writers = [Writer(i, daemon, oracle, random.Random(rng.random()), big, stop, pause) for i in range(WRITERS)]
    # The cut: at a random moment, or at the Nth operation of a kind (a precise crash point).
    cut_at = rng.uniform(0.05, 1.5)
    op_cut = None
    torn = fs.torn_rng is not None
    if torn and event == "writes":
        # Just before a sync is where unsynced bytes wait: there a cut can tear them.
        op_cut = (rng.choice(["fdatasync", "fdatasync", "fsync"]), rng.randint(1, 40 if big else 80))
    elif rng.random() < 0.5:
        if event == "wipe":
            op_cut = (rng.choice(["unlink", "fsyncdir", "rename", "create", "any"]), rng.randint(1, 6))
        elif event == "passcode":
            op_cut = (rng.choice(["rename", "fsync", "fsyncdir", "any"]), rng.randint(1, 8))
        else:
            op_cut = (rng.choice(["fdatasync", "rename", "fsyncdir", "write"]), rng.randint(1, 40 if big else 80))
    started = time.monotonic()
    # The outside cut kills at its moment whatever the cycle is doing; an armed
    # crash point gets until 1.5 s to be reached.
    timer = threading.Timer(1.5 if op_cut else cut_at, daemon.signal_kill)
    timer.start()
    for w in writers:
        w.start()
    if op_cut and event == "writes":
        fs.arm(daemon.process.pid, *op_cut)
    try:
        time.sleep(rng.uniform(0.0, 0.4))
        if event == "passcode":
            old = oracle.passcode
            new = None if (old is not None and rng.random() < 0.2) else f"pc-{cycle}-{rng.randrange(10**6)}"
            oracle.passcode_inflight = (old, new)
            if op_cut:
                fs.arm(daemon.process.pid, *op_cut)
            connection = daemon.connect()
            try:
                connection.call("io.widgetd.Device.SetPasscode", {"current": old, "new": new})
            finally:
                connection.close()
            oracle.previous_passcode, oracle.passcode, oracle.passcode_inflight = old, new, None
        elif event == "wrong-passcode":
            # Distinct wrong passcodes (a repeated one is not counted again), fewer than
            # the five after which the next attempt must wait.
            connection = daemon.connect()
            try:
                for attempt in range(rng.randint(1, 2)):
                    try:
                        connection.call("io.widgetd.Device.Unlock", {"passcode": f"wrong-{cycle}-{attempt}"})
                        raise Finding("a wrong passcode unlocked")
                    except VarlinkError as error:
                        if error.name != "io.widgetd.WrongPasscode":
                            raise Finding(f"Unlock with a wrong passcode: unexpected {error}")
                        oracle.acked_failures = error.parameters["failedAttempts"]
            finally:
                connection.close()
        elif event == "wipe":
            pause.set()
            while not all(w.idle.is_set() or not w.is_alive() for w in writers):
                time.sleep(0.002)
            oracle.wipe_inflight = True
            if op_cut:
                fs.arm(daemon.process.pid, *op_cut)
            connection = daemon.connect()
            try:
                connection.call("io.widgetd.Device.Wipe", {"confirm": "WIPE"})
            finally:
                connection.close()
            for widget in oracle.widgets.values():
                widget.acked, widget.inflight, widget.floor = ABSENT, None, 0
            oracle.passcode, oracle.wipe_inflight, oracle.acked_failures = None, False, 0
            pause.clear()
    except (OSError, ConnectionError):
        pass  # the daemon was cut in the middle of it
    daemon.process.wait()
    by_fs = timer.is_alive()
    timer.cancel()
    daemon.kill()
    stop.set()
    for w in writers:
        w.join()
    stats = fs.cut()
    how = f"at {op_cut[0]} #{op_cut[1]}" if op_cut and by_fs else f"at {time.monotonic() - started:.2f}s"
    return (f"{event}{' (large writes)' if big else ''}, cut {how}; fs: {stats['fdatasync']} fdatasync, "
            f"{stats['rename']} rename, {stats['fsyncdir']} dir fsync; {stats['lost_dirty_bytes']} bytes unsynced "
            f"in {stats['lost_dirty_files']} files" + (
                f", kept {stats['kept_bytes']} unsynced bytes in {stats['kept_files']} files and "
                f"{stats['kept_dirs']} directories' entries" if fs.torn_rng else ""))


# Crash points chosen, not drawn: each step of the operations whose order matters
# (a wrong passcode's durable count included).
# (operation, kind of file-system operation at which the power goes, its number)
DIRECTED = [
    ("wipe", "write", 1), ("wipe", "fdatasync", 1), ("wipe", "unlink", 1), ("wipe", "unlink", 3),
    ("wipe", "fsyncdir", 1), ("wipe", "unlink", 4), ("wipe", "fsyncdir", 2), ("wipe", "create", 1),
    ("wipe", "fsyncdir", 3), ("wipe", "rename", 1), ("wipe", "fsyncdir", 4), ("wipe", "create", 2),
    ("wipe", "rename", 2), ("wipe", "fsyncdir", 5), ("wipe", "fsyncdir", 6),
    ("passcode", "create", 1), ("passcode", "fsync", 1), ("passcode", "rename", 1), ("passcode", "fsyncdir", 1),
    ("delete", "rename", 1), ("delete", "fsyncdir", 1), ("delete", "write", 1), ("delete", "unlink", 1),
    ("delete", "fsyncdir", 2),
    ("stop", "rename", 1), ("stop", "rename", 6), ("stop", "fsyncdir", 1), ("stop", "write", 1),
    ("wrong-passcode", "fsyncdir", 1), ("wrong-passcode", "create", 2), ("wrong-passcode", "fsyncdir", 2),
    # A full disk (issue 40): a crash, then a start on the still-full disk, which cannot
    # fold the journal and must serve every acknowledged write from it; an orderly stop
    # whose fold fails, the start with room again; a delete on the full disk, answered
    # either done or StorageFailure having changed nothing, cut at each of its steps.
    ("full-start", "fsyncdir", 1000), ("full-stop", "fsyncdir", 1000),
    ("full-delete", "write", 1), ("full-delete", "create", 1), ("full-delete", "fsyncdir", 1000),
]


def directed_cycle(cycle, scenario, rng, fs, daemon, oracle):
    """Journaled writes of every widget, then `operation` with the power cut at the
    `number`-th `kind` of file-system operation (or after it, if it has fewer)."""
    operation, kind, number = scenario
    connection = daemon.connect()
    try:
        # A passcode tells afterwards whether a Wipe in flight happened (it removes it).
        if oracle.passcode is None and operation in ("passcode", "wipe", "wrong-passcode"):
            connection.call("io.widgetd.Device.SetPasscode", {"current": None, "new": f"pc-{cycle}-first"})
            oracle.passcode = f"pc-{cycle}-first"
        for widget in oracle.widgets.values():
            put(connection, oracle, widget, rng, False)
        fs.arm(daemon.process.pid, kind, number)
        if operation.startswith("full-"):
            fs.set_full(True)
        if operation == "full-start":
            daemon.signal_kill()
            fs.full_at_mount = True
        elif operation == "full-stop":
            daemon.process.send_signal(signal.SIGTERM)
        elif operation == "full-delete":
            widget = next(iter(oracle.widgets.values()))
            try:
                delete(connection, widget)
            except VarlinkError as error:
                if error.name != "io.widgetd.StorageFailure":
                    raise Finding(f"DeleteTimeline on a full disk: unexpected {error}")
                # An error means nothing changed: the widget must still read as acknowledged.
                widget.inflight = None
        elif operation == "wipe":
            oracle.wipe_inflight = True
            connection.call("io.widgetd.Device.Wipe", {"confirm": "WIPE"})
            for widget in oracle.widgets.values():
                widget.acked, widget.floor = ABSENT, 0
            oracle.passcode, oracle.wipe_inflight = None, False
        elif operation == "passcode":
            old, new = oracle.passcode, f"pc-{cycle}-{rng.randrange(10**6)}"
            oracle.passcode_inflight = (old, new)
            connection.call("io.widgetd.Device.SetPasscode", {"current": old, "new": new})
            oracle.previous_passcode, oracle.passcode, oracle.passcode_inflight = old, new, None
        elif operation == "delete":
            delete(connection, next(iter(oracle.widgets.values())))
        elif operation == "wrong-passcode":
            for attempt in range(2):
                try:
                    connection.call("io.widgetd.Device.Unlock", {"passcode": f"wrong-{cycle}-{attempt}"})
                    raise Finding("a wrong passcode unlocked")
                except VarlinkError as error:
                    if error.name != "io.widgetd.WrongPasscode":
                        raise Finding(f"Unlock with a wrong passcode: unexpected {error}")
                    oracle.acked_failures = error.parameters["failedAttempts"]
        elif operation == "stop":
            daemon.process.send_signal(signal.SIGTERM)
    except (OSError, ConnectionError):
        pass
    finally:
        connection.close()
    try:
        daemon.process.wait(timeout=5)
        by_fs = operation not in ("stop", "full-stop", "full-start") or daemon.process.returncode == -signal.SIGKILL
    except subprocess.TimeoutExpired:
        by_fs = False
    daemon.kill()
    stats = fs.cut()
    if operation == "full-start":
        return f"full-start, killed on the full disk, cut; {stats['lost_dirty_bytes']} bytes unsynced in " \
            f"{stats['lost_dirty_files']} files"
    return f"{operation}, cut {'at ' + kind + ' #' + str(number) if by_fs else 'after it (fewer ' + kind + ')'}; " \
        f"{stats['lost_dirty_bytes']} bytes unsynced in {stats['lost_dirty_files']} files"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--widgetd", required=True)
    parser.add_argument("--fs", required=True)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--cuts", type=int, default=30, help="random cuts (after the directed ones)")
    parser.add_argument("--directed", action=argparse.BooleanOptionalAction, default=True,
                        help="first cut at each step of wipe, SetPasscode, delete and the fold at stop")
    parser.add_argument("--forget-fdatasync", action="store_true")
    parser.add_argument("--forget-fsync", action="store_true")
    parser.add_argument("--forget-dirsync", action="store_true")
    parser.add_argument("--forget-dirsync-of", metavar="DIR",
                        help="forget only the fsyncs of this directory of the state directory (e.g. timelines)")
    parser.add_argument("--torn", action="store_true",
                        help="at each cut keep part of what was not synced (torn records, early renames)")
    parser.add_argument("--credential-key", action="store_true",
                        help="the device key as a systemd credential (a Wipe cannot remove it)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    # A stop from outside still unmounts and kills what this started (the finally below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    flags = (["--forget-fdatasync"] if args.forget_fdatasync else []) + (["--forget-dirsync"] if args.forget_dirsync else []) \
        + (["--forget-fsync"] if args.forget_fsync else []) \
        + (["--forget-dirsync-of", f"{STATE_NAME}/{args.forget_dirsync_of}"] if args.forget_dirsync_of else [])
    log(f"seed {seed}, {args.cuts} cuts, file system {' '.join(flags) or 'honest'}{' (torn)' if args.torn else ''}")
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="widgetd-power-loss-")
    fs = PowerCutFS(args.fs, work, flags, random.Random(seed ^ 0x7041) if args.torn else None)
    daemon = Daemon(args.widgetd, work)
    if args.credential_key:
        daemon.use_credential_key()
    oracle = Oracle()
    status = 0
    acked_total = 0
    cycle = -1
    try:
        restart_and_check(fs, daemon, oracle, -1)
        plan = [("directed", s) for s in DIRECTED] if args.directed else []
        plan += [("random", None)] * args.cuts
        for cycle, (kind, scenario) in enumerate(plan):
            before = oracle.acked_writes
            if kind == "directed":
                description = directed_cycle(cycle, scenario, rng, fs, daemon, oracle)
            else:
                description = run_cycle(cycle, rng, fs, daemon, oracle)
            recovered = restart_and_check(fs, daemon, oracle, cycle)
            # Room again for what follows (a start on a full disk was just checked).
            fs.set_full(False)
            acked_total = oracle.acked_writes
            log(f"cut {cycle + 1}/{len(plan)}: {description}; {oracle.acked_writes - before} writes acknowledged, "
                f"{recovered} journal records recovered"
                + (f", {oracle.kept_failures} failed unlock attempts kept" if oracle.kept_failures else "")
                + ": all promises held")
        log(f"PASS: {len(plan)} cuts, {acked_total} acknowledged writes checked (seed {seed})")
    except Finding as finding:
        log(f"FINDING after cut {cycle + 1} (seed {seed}): {finding}")
        status = 3
    except Exception as error:  # the harness broke, not the daemon
        log(f"ERROR (seed {seed}): {error!r}")
        status = 1
    finally:
        daemon.kill()
        if fs.process and fs.process.poll() is None:
            subprocess.run(["fusermount3", "-u", fs.mountpoint], stderr=subprocess.DEVNULL)
            fs.process.wait()
        if args.keep or status == 1:
            log(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
