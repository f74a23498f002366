"""examples/python-host/lockscreen.py against a real daemon: it shows content,
then the placeholder once locked, then content again, and stops cleanly."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
import unittest

import widgetd

from . import fixtures as fx
from .daemon import REPOSITORY, DaemonFixture

LOCKSCREEN = os.path.join(REPOSITORY, "examples", "python-host", "lockscreen.py")
MAIL = "com.example.mail/inbox#lock-1"
PASSCODE = "1234"


@unittest.skipUnless(os.path.exists(LOCKSCREEN), "the examples are not beside this package")
class LockScreenExampleTests(DaemonFixture, unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        with widgetd.Client(cls.daemon.socket) as c:
            c.set_passcode(new=PASSCODE)
            c.put_timeline(MAIL, fx.entries(secret="from Alice"), policy="never", placeholder=fx.PLACEHOLDER)

    def run_lockscreen(self, *arguments: str) -> subprocess.Popen:
        env = dict(os.environ)
        # The package under test: the installed copy if the runner put one first, else this tree.
        package = os.path.dirname(os.path.dirname(os.path.abspath(widgetd.__file__)))
        env["PYTHONPATH"] = package + os.pathsep + env.get("PYTHONPATH", "")
        return subprocess.Popen(
            [sys.executable, LOCKSCREEN, "--socket", self.daemon.socket, *arguments],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        )

    def read_block(self, process: subprocess.Popen, containing: str, timeout: float = 30) -> str:
        """Reads blocks (separated by blank lines) until one contains ``containing``."""
        assert process.stdout is not None
        fd = process.stdout.fileno()
        pending = self.__dict__.setdefault("_pending", bytearray())
        selector = selectors.DefaultSelector()
        selector.register(fd, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while True:
            while b"\n\n" in pending:
                end = pending.index(b"\n\n")
                text = pending[:end].decode("utf-8")
                del pending[: end + 2]
                if containing in text:
                    return text
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(timeout=remaining):
                break
            data = os.read(fd, 65536)
            if not data:
                break
            pending += data
        self.fail("lockscreen.py printed no block with %r" % containing)

    def test_it_follows_the_lock_screen_across_lock_and_unlock(self) -> None:
        process = self.run_lockscreen(MAIL)
        try:
            shown = self.read_block(process, MAIL)
            self.assertIn("lockScreen · content", shown)
            self.assertIn("from Alice", shown)
            with widgetd.Client(self.daemon.socket) as c:
                c.lock()
                try:
                    locked = self.read_block(process, "placeholder")
                    self.assertNotIn("from Alice", locked)
                    self.assertIn("••••", locked)  # the redacted fields
                    self.assertIn("City", locked)  # the public placeholder field
                finally:
                    c.unlock(PASSCODE)
            self.assertIn("from Alice", self.read_block(process, "lockScreen · content"))
        finally:
            process.send_signal(signal.SIGTERM)
            _, errors = process.communicate(timeout=30)
        self.assertEqual(process.returncode, 0, errors.decode("utf-8", "replace"))

    def test_once_prints_the_current_state_and_exits(self) -> None:
        process = self.run_lockscreen("--once")
        output, errors = process.communicate(timeout=30)
        self.assertEqual(process.returncode, 0, errors.decode("utf-8", "replace"))
        self.assertIn("device: unlocked", output.decode("utf-8"))
        self.assertIn(MAIL + " · lockScreen · content", output.decode("utf-8"))


if __name__ == "__main__":
    unittest.main()
