#!/usr/bin/env python3
"""A stranger's calls while a provider writes, on a disk whose syncs are slow (issue 40).

    slow_sync.py --widgetd BIN --fs POWERCUT_FS [--sync-delay-ms 50] [--writes 200]
                 [--appends 20] [--interval-ms 20] [--watchdog-sec 2] [--work DIR]

The state directory is on powercut-fs with --sync-delay-ms (every fsync, fdatasync and
directory fsync takes that much longer; the file system serves nothing else meanwhile).
widgetd runs with a systemd watchdog (WATCHDOG_USEC) whose pings this script receives.
A stranger (uid 65534, no role but GetStatus) calls GetStatus every --interval-ms on a
connection of its own while one provider writes --writes timelines (each its own widget,
one after the other on one connection: each is journaled), appends entries to --appends
of them (each builds on its widget's stored timeline: it used to sync on the loop), then
deletes one (--writes 0: the stranger alone for 10 s, what the machine's own load
costs it); then the owner makes --device-changes rounds of the device's own durable
writes (a passcode set, a lock, a wrong and a right unlock, new settings, the passcode
removed: each writes the keybag or the settings file, which also used to sync on the
loop); with --wipe, the owner then wipes the store, whose own erase is the one change
that still syncs on the loop: the stranger's latency while it runs is reported apart
and bounded by WIPE_LIMIT_MS (use a --watchdog-sec above twice that). The
stranger's latency is measured from when each call was due (so a stall counts for every
call it delayed), and first for 3 s alone (the baseline: what the machine's own load
costs it). Prints the figures as JSON; exits 1 if the stranger's p99 is above 50 ms (on a
machine whose baseline p99 is above 25 ms: above the baseline's plus 50 ms), its max
above 500 ms, or a watchdog ping came later than WATCHDOG_USEC after the one before.
"""
import argparse
import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from power_loss import STATE_NAME, Connection, Daemon, PowerCutFS, VarlinkError  # noqa: E402

P99_LIMIT_MS = 50
MAX_LIMIT_MS = 500
#: A wipe erases and remakes the whole store on the loop: about 20 syncs of its own
#: (each file's removal, the new keys, catalog, journal and settings), whatever the
#: number of widgets. The bound is 40 syncs of the default 50 ms.
WIPE_LIMIT_MS = 2000


def stranger(socket_path, interval, stop_read, out_write):
    """In a child dropped to nobody: GetStatus every `interval` s until `stop_read` closes;
    writes each call's latency (ms, from when it was due) to `out_write`."""
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
    connection = Connection(socket_path)
    latencies = []
    start = time.monotonic()
    k = 0
    while True:
        if select.select([stop_read], [], [], 0)[0]:
            break
        due = start + k * interval
        k += 1
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        connection.call("io.widgetd.Device.GetStatus")
        latencies.append((due, (time.monotonic() - due) * 1000))
    with os.fdopen(out_write, "w") as out:
        out.write(json.dumps(latencies))
    os._exit(0)


def device_changes(owner, round_):
    """One round of the owner's device changes, each a durable write of its own: the
    keybag (a passcode set, a wrong passcode counted, the count reset by the right one,
    the passcode removed) or the settings file."""
    passcode = f"pass-{round_}"
    owner.call("io.widgetd.Device.SetPasscode", {"new": passcode})
    owner.call("io.widgetd.Device.Lock")
    try:
        owner.call("io.widgetd.Device.Unlock", {"passcode": "wrong"})
        raise RuntimeError("a wrong passcode unlocked")
    except VarlinkError as error:
        if error.name != "io.widgetd.WrongPasscode":
            raise
    owner.call("io.widgetd.Device.Unlock", {"passcode": passcode})
    owner.call("io.widgetd.Device.SetSettings", {"lockScreenWidgetsAccess": round_ % 2 == 0})
    owner.call("io.widgetd.Device.SetPasscode", {"current": passcode})


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--widgetd", required=True)
    parser.add_argument("--fs", required=True)
    parser.add_argument("--sync-delay-ms", type=int, default=50)
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--appends", type=int, default=20)
    parser.add_argument("--interval-ms", type=int, default=20)
    parser.add_argument("--device-changes", type=int, default=3)
    parser.add_argument("--wipe", action="store_true")
    parser.add_argument("--watchdog-sec", type=float, default=2)
    parser.add_argument("--work")
    args = parser.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="widgetd-slow-sync-")
    os.chmod(work, 0o755)
    fs = PowerCutFS(os.path.abspath(args.fs), work, ["--sync-delay-ms", str(args.sync_delay_ms)])
    fs.mount()
    daemon = Daemon(os.path.abspath(args.widgetd), work)
    os.chmod(os.path.join(work, "run"), 0o755)
    pings = []
    notify_path = os.path.join(work, "notify")
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(notify_path)
    stopping = threading.Event()

    def receive():
        notify.settimeout(0.2)
        while not stopping.is_set():
            try:
                message = notify.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            if b"WATCHDOG=1" in message:
                pings.append(time.monotonic())

    receiver = threading.Thread(target=receive, daemon=True)
    receiver.start()
    env = {k: v for k, v in os.environ.items() if k not in ("JOURNAL_STREAM", "LISTEN_FDS", "CREDENTIALS_DIRECTORY")}
    env["NOTIFY_SOCKET"] = notify_path
    env["WATCHDOG_USEC"] = str(int(args.watchdog_sec * 1_000_000))
    state = os.path.join(fs.mountpoint, STATE_NAME)
    with open(daemon.log_path, "ab") as out:
        daemon.process = subprocess.Popen(
            [daemon.binary, "--config", daemon.config, "--state-directory", state, "--socket", daemon.socket_path],
            stdout=out, stderr=out, env=env)
    result = {}
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(daemon.socket_path) or not pings:
            if time.monotonic() > deadline or daemon.process.poll() is not None:
                raise RuntimeError(f"widgetd did not start:\n{daemon.log_tail()}")
            time.sleep(0.05)
        # The harness lets the stranger reach the socket; widgetd decides by its credentials.
        os.chmod(daemon.socket_path, 0o666)
        provider = daemon.connect()
        provider.call("io.widgetd.Device.GetStatus")
        stop_read, stop_write = os.pipe()
        out_read, out_write = os.pipe()
        child = os.fork()
        if child == 0:
            os.close(stop_write)
            os.close(out_read)
            try:
                stranger(daemon.socket_path, args.interval_ms / 1000, stop_read, out_write)
            finally:
                os._exit(1)
        os.close(stop_read)
        os.close(out_write)
        # The baseline: the stranger alone, what the machine's own load costs it.
        time.sleep(0.5)
        baseline_from = time.monotonic()
        time.sleep(3)
        started = time.monotonic()
        for i in range(args.writes):
            provider.call("io.widgetd.Provider.PutTimeline", {
                "widget": f"com.example.clock/w#{i}", "family": "systemSmall",
                "entries": [{"date": "2026-01-01T00:00:00Z", "fields": {"headline": {"value": f"write {i} " + "x" * 1000}}}]})
        wrote = time.monotonic()
        for i in range(min(args.appends, args.writes)):
            provider.call("io.widgetd.Provider.AppendEntries", {
                "widget": f"com.example.clock/w#{i}",
                "entries": [{"date": "2026-01-02T00:00:00Z", "fields": {"headline": {"value": f"append {i}"}}}]})
        appended = time.monotonic()
        if args.writes > 0:
            provider.call("io.widgetd.Provider.DeleteTimeline", {"widget": "com.example.clock/w#0"})
        else:
            # A baseline: the stranger alone for as long, what the machine's load costs it.
            time.sleep(10)
        deleted = time.monotonic()
        for round_ in range(args.device_changes):
            device_changes(provider, round_)
        changed = time.monotonic()
        if args.wipe:
            provider.call("io.widgetd.Device.Wipe", {"confirm": "WIPE"})
        wiped = time.monotonic()
        time.sleep(0.5)
        os.close(stop_write)
        with os.fdopen(out_read) as f:
            samples = json.loads(f.read() or "[]")
        os.waitpid(child, 0)
        baseline = [latency for due, latency in samples if baseline_from <= due < started]
        # The wipe's window is judged alone (WIPE_LIMIT_MS): the administrator's erase of
        # the whole store is the one change whose own syncs still hold the loop.
        latencies = [latency for due, latency in samples if started <= due < changed]
        gaps = [b - a for a, b in zip(pings, pings[1:])]
        result = {
            "sync_delay_ms": args.sync_delay_ms, "writes": args.writes,
            "writes_s": round(wrote - started, 2), "appends": min(args.appends, args.writes),
            "appends_s": round(appended - wrote, 2), "delete_ms": round((deleted - appended) * 1000, 1),
            "device_changes": 6 * args.device_changes, "device_changes_s": round(changed - deleted, 2),
            "stranger_p99_during_device_changes_ms": round(percentile(
                [latency for due, latency in samples if deleted <= due < changed] or [0], 0.99), 1),
            "wipe_ms": round((wiped - changed) * 1000, 1) if args.wipe else None,
            "stranger_max_during_wipe_ms": round(max(
                [latency for due, latency in samples if changed <= due < wiped + 0.5] or [0]), 1) if args.wipe else None,
            "stranger_calls": len(latencies),
            "stranger_p50_ms": round(percentile(latencies, 0.50), 1),
            "stranger_p99_ms": round(percentile(latencies, 0.99), 1),
            "stranger_max_ms": round(max(latencies), 1),
            "baseline_p99_ms": round(percentile(baseline, 0.99), 1),
            "baseline_max_ms": round(max(baseline), 1),
            "watchdog_usec": int(args.watchdog_sec * 1_000_000),
            "watchdog_max_gap_ms": round(max(gaps) * 1000, 1) if gaps else None,
        }
    finally:
        stopping.set()
        daemon.kill()
        receiver.join()
        notify.close()
        fs.cut()
    print(json.dumps(result))
    failures = []
    # On a machine whose own load already costs the stranger more than half the bound
    # (the baseline, measured alone just before), the p99 is judged beside it.
    p99_limit = P99_LIMIT_MS
    if result["baseline_p99_ms"] > P99_LIMIT_MS / 2:
        p99_limit = result["baseline_p99_ms"] + P99_LIMIT_MS
        print(f"slow-sync: a loaded machine (the stranger alone: p99 {result['baseline_p99_ms']} ms): "
              f"the p99 bound is {p99_limit} ms", file=sys.stderr)
    if result["stranger_p99_ms"] > p99_limit:
        failures.append(f"stranger p99 {result['stranger_p99_ms']} ms > {p99_limit} ms")
    if result["stranger_max_ms"] > MAX_LIMIT_MS:
        failures.append(f"stranger max {result['stranger_max_ms']} ms > {MAX_LIMIT_MS} ms")
    if args.wipe and result["stranger_max_during_wipe_ms"] > WIPE_LIMIT_MS:
        failures.append(f"the wipe held the stranger {result['stranger_max_during_wipe_ms']} ms > {WIPE_LIMIT_MS} ms")
    if result["watchdog_max_gap_ms"] is None or result["watchdog_max_gap_ms"] > args.watchdog_sec * 1000:
        failures.append(f"a watchdog ping came late: {result['watchdog_max_gap_ms']} ms apart")
    for failure in failures:
        print(f"slow-sync: {failure}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
