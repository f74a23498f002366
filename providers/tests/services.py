"""What the service tests share: a real widgetd, a provider process, a watching host.

Nothing here is a mock: widgetd is the repository's build (``WIDGETD_BIN``, else the
newer of .build's release and debug), started as the Python client's tests start it
(readiness by READY=1); the host is the Python client following ``Host.Watch``.
Waiting is for an event (a presentation that matches) with a generous deadline, never
a sleep that guesses how long something takes.
"""

from __future__ import annotations

import importlib.util
import os
import queue
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROVIDERS = os.path.join(REPOSITORY, "providers")
sys.path.insert(0, os.path.join(REPOSITORY, "clients", "python"))

import widgetd  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "widgetd_test_daemon", os.path.join(REPOSITORY, "clients", "python", "tests", "daemon.py"))
assert _spec is not None and _spec.loader is not None
daemon_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(daemon_module)

#: The providers' registrations, as providers/providers.d has them, for this uid.
REGISTRATIONS = {
    "org.widgetd.calendar": "completeUntilFirstUserAuthentication",
    "org.widgetd.media": "none",
    "org.widgetd.power": "none",
}

#: The passcode the tests set, so that a lock locks content.
PASSCODE = "4711"

#: Seconds any one awaited change may take (evolution-data-server's first start is slow).
DEADLINE = float(os.environ.get("WIDGETD_PROVIDER_TEST_DEADLINE", "60"))


def start_daemon() -> Any:
    """A real widgetd with the three providers registered for the test's uid."""
    daemon = daemon_module.Daemon()
    etc = os.path.dirname(daemon.config)
    for provider, protection in REGISTRATIONS.items():
        with open(os.path.join(etc, "providers.d", provider + ".conf"), "w") as f:
            f.write("[Provider]\nId=%s\nUser=%d\nDataProtection=%s\n" % (provider, os.getuid(), protection))
    daemon.start()
    return daemon


class ProviderProcess:
    """One provider executable, from the tree, its log kept apart."""

    def __init__(self, name: str, socket: str, root: str, extra_env: Optional[Dict[str, str]] = None) -> None:
        self.log_path = os.path.join(root, name + ".log")
        env = dict(os.environ)
        env.update(extra_env or {})
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                ["/usr/bin/python3", os.path.join(PROVIDERS, "bin", name), "--socket", socket]
                + (["--verbose"] if os.environ.get("WIDGETD_PROVIDER_TEST_LOGS") else []),
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env)

    def log(self) -> str:
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> Optional[int]:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


class Host:
    """A host following one widget on one surface: every presentation, in order,
    with the monotonic time it arrived. It follows widgetd restarting."""

    def __init__(self, socket: str, widget: str, surface: str) -> None:
        self.socket = socket
        self.widget = widget
        self.surface = surface
        self.presentations: "queue.Queue[tuple]" = queue.Queue()
        self.latest: Optional[Dict[str, Any]] = None
        #: The monotonic time ``latest`` arrived.
        self.latest_arrived = 0.0
        self._stop = False
        self._stream: Any = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self._stop:
            try:
                self._stream = widgetd.Client(self.socket).watch(self.widget, self.surface)
                for presentation in self._stream:
                    self.presentations.put((time.monotonic(), presentation))
            except widgetd.Error:
                pass
            if not self._stop:
                time.sleep(0.05)  # widgetd restarting: try its socket again

    def wait_for(self, predicate: Callable[[Dict[str, Any]], bool], what: str,
                 deadline: float = DEADLINE) -> Dict[str, Any]:
        """The first presentation (the latest one seen included) that ``predicate`` accepts."""
        if self.latest is not None and predicate(self.latest):
            return self.latest
        end = time.monotonic() + deadline
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError("no presentation of %s on %s %s within %gs; the last: %r"
                                     % (self.widget, self.surface, what, deadline, self.latest))
            try:
                arrived, presentation = self.presentations.get(timeout=left)
            except queue.Empty:
                continue
            self.latest = presentation
            self.latest_arrived = arrived
            if predicate(presentation):
                return presentation

    def close(self) -> None:
        self._stop = True
        if self._stream is not None:
            self._stream.close()


def value(presentation: Dict[str, Any], field: str) -> Any:
    """A field's value in a presentation, None if absent."""
    entry = presentation.get("entry") or {}
    found = (entry.get("fields") or {}).get(field)
    return None if found is None else found.get("value")


def redacted(presentation: Dict[str, Any], field: str) -> bool:
    entry = presentation.get("entry") or {}
    found = (entry.get("fields") or {}).get(field) or {}
    return found.get("redacted") is True


def actions(presentation: Dict[str, Any]) -> List[Dict[str, Any]]:
    return list(presentation.get("actions") or [])


def perform_action(socket: str, widget: str, surface: str, action: str) -> Dict[str, Any]:
    """``Host.PerformAction``: the first outcome (the raw Varlink call, as the client
    may not have it yet)."""
    from widgetd import _protocol as wire
    call = wire.Call("io.widgetd.Host.PerformAction", {"widget": widget, "surface": surface, "action": action},
                     result=lambda p: p)
    client = widgetd.Client(socket, timeout=30)
    try:
        return client._run(call)
    finally:
        client.close()


#: ``WIDGETD_PROVIDER_BENCH=N``: each service test also measures N changes.
BENCH_ROUNDS = int(os.environ.get("WIDGETD_PROVIDER_BENCH", "0") or 0)


def percentile(samples: List[float], fraction: float) -> float:
    """The nearest-rank percentile of ``samples``."""
    ordered = sorted(samples)
    rank = max(1, int(-(-fraction * len(ordered) // 1)))
    return ordered[min(rank, len(ordered)) - 1]


def report(name: str, samples: List[float], span: str = "source to host") -> str:
    line = "bench %s: %d changes, %s p50 %.1f ms, p99 %.1f ms, max %.1f ms" % (
        name, len(samples), span, percentile(samples, 0.5) * 1000, percentile(samples, 0.99) * 1000, max(samples) * 1000)
    print(line)
    return line


def idle(process: "subprocess.Popen", seconds: float) -> str:
    """CPU time, context switches and resident memory of ``process`` over ``seconds``
    in which nothing changes (the benchmark's idle row; a measurement, so it sleeps)."""
    def sample() -> tuple:
        with open("/proc/%d/stat" % process.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])
        switches = 0
        rss = 0
        with open("/proc/%d/status" % process.pid) as f:
            for line in f:
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    switches += int(line.split()[1])
                elif line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
        return ticks, switches, rss
    before = sample()
    time.sleep(seconds)
    after = sample()
    hz = os.sysconf("SC_CLK_TCK")
    line = "idle over %gs: CPU %.2f s, %d context switches, RSS %.1f MiB" % (
        seconds, (after[0] - before[0]) / hz, after[1] - before[1], after[2] / 1024)
    print(line)
    return line
