"""A real widgetd on a temporary configuration, state directory and socket.

Readiness is awaited the way systemd awaits it: the test owns a NOTIFY_SOCKET and
waits for READY=1, so no test guesses how long a start takes.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest
from typing import Dict, List, Optional, Sequence, Tuple

#: The widgetd repository (interfaces/, examples/, .build/): WIDGETD_REPOSITORY, else
#: the one these tests lie in.
REPOSITORY = os.environ.get("WIDGETD_REPOSITORY") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "..", "..")
)

#: The providers every test daemon registers, one per class, owned by the test's uid.
PROVIDERS: Sequence[Tuple[str, str, List[str]]] = (
    ("com.example.health", "complete", []),
    ("com.example.mail", "completeUnlessOpen", []),
    ("com.example.weather", "completeUntilFirstUserAuthentication", []),
    ("com.example.clock", "none", []),
    ("com.example.media", "none", []),
    # A provider with room for one widget only: its second widget is TooLarge(limit: 1).
    ("com.example.tiny", "none", ["MaxWidgets=1"]),
)


def widgetd_binary() -> str:
    """``WIDGETD_BIN``, else the newer of the repository's release and debug builds."""
    configured = os.environ.get("WIDGETD_BIN")
    if configured:
        return configured
    built = [
        candidate
        for candidate in (os.path.join(REPOSITORY, ".build", flavour, "widgetd") for flavour in ("release", "debug"))
        if os.access(candidate, os.X_OK)
    ]
    if not built:
        raise unittest.SkipTest("no widgetd binary: build it (swift build) or set WIDGETD_BIN")
    return max(built, key=os.path.getmtime)


def widgetctl_directory(scratch: str) -> str:
    """A directory with ``widgetctl`` in it: the one beside widgetd, else a link to
    widgetd in ``scratch`` (one binary, which acts by the name it is called by)."""
    daemon = widgetd_binary()
    beside = os.path.join(os.path.dirname(daemon), "widgetctl")
    if os.access(beside, os.X_OK):
        return os.path.dirname(daemon)
    link = os.path.join(scratch, "widgetctl")
    if not os.path.exists(link):
        os.symlink(os.path.abspath(daemon), link)
    return scratch


class Daemon:
    """Starts widgetd and stops it with SIGTERM."""

    def __init__(self, daemon_lines: Sequence[str] = ()) -> None:
        self.root = tempfile.mkdtemp(prefix="widgetd-python-")
        etc = os.path.join(self.root, "etc")
        os.makedirs(os.path.join(etc, "providers.d"))
        self.config = os.path.join(etc, "widgetd.conf")
        with open(self.config, "w") as f:
            f.write("\n".join(["[Daemon]", "PasscodeKDF=minimum", *daemon_lines, ""]))
        for provider, protection, extra in PROVIDERS:
            with open(os.path.join(etc, "providers.d", provider + ".conf"), "w") as f:
                f.write(
                    "\n".join(["[Provider]", "Id=" + provider, "User=%d" % os.getuid(),
                               "DataProtection=" + protection, *extra, ""])
                )
        self.state = os.path.join(self.root, "state")
        self.socket = os.path.join(self.root, "widgetd.sock")
        self.log_path = os.path.join(self.root, "widgetd.log")
        self.process: Optional[subprocess.Popen] = None

    def start(self, timeout: float = 120) -> None:
        """Starts the daemon and returns once it sent READY=1."""
        notify_path = os.path.join(self.root, "notify")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        env: Dict[str, str] = dict(os.environ)
        env["NOTIFY_SOCKET"] = notify_path
        for key in ("LISTEN_FDS", "LISTEN_PID", "JOURNAL_STREAM", "CREDENTIALS_DIRECTORY", "WIDGETD_SOCKET"):
            env.pop(key, None)
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [widgetd_binary(), "--config", self.config, "--state-directory", self.state, "--socket", self.socket],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
            )
        deadline = time.monotonic() + timeout
        try:
            while True:
                if self.process.poll() is not None:
                    raise RuntimeError("widgetd exited (%s) before READY=1:\n%s" % (self.process.returncode, self.log()))
                if time.monotonic() > deadline:
                    raise RuntimeError("widgetd sent no READY=1 within %ss:\n%s" % (timeout, self.log()))
                notify.settimeout(0.5)
                try:
                    datagram = notify.recv(4096)
                except socket.timeout:
                    continue
                if b"READY=1" in datagram.split(b"\n"):
                    return
        finally:
            notify.close()
            os.unlink(notify_path)

    def stop(self) -> Optional[int]:
        """Stops the daemon with SIGTERM; its exit status."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        status = self.process.wait(timeout=60)
        self.process = None
        return status

    def log(self) -> str:
        """What the daemon logged so far."""
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def remove(self) -> None:
        """Stops the daemon and removes its directory."""
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


class DaemonFixture:
    """Mixed into a test class: a daemon of its own, started before its first test."""

    daemon_lines: Sequence[str] = ()
    daemon: Daemon

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.daemon = Daemon(cls.daemon_lines)
        try:
            cls.daemon.start()
        except BaseException:
            cls.daemon.remove()
            raise

    @classmethod
    def tearDownClass(cls) -> None:
        cls.daemon.remove()
        super().tearDownClass()
