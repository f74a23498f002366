"""The examples against a real daemon: lockscreen.py shows content, then the
placeholder once locked, then content again; the Waybar and eww configurations'
commands print what those programs read; the Sxmo hooks lock and unlock."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import widgetd

from . import fixtures as fx
from .daemon import REPOSITORY, DaemonFixture, widgetctl_directory

EXAMPLES = os.path.join(REPOSITORY, "examples")
LOCKSCREEN = os.path.join(EXAMPLES, "python-host", "lockscreen.py")
WEATHER = "com.example.weather/forecast#lock-1"
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
            c.put_timeline(WEATHER, fx.entries(secret="12 rue X"), policy="never", placeholder=fx.PLACEHOLDER)

    def run_lockscreen(self, *arguments: str) -> subprocess.Popen:
        env = dict(os.environ)
        # The package under test: the installed copy if the runner put one first, else this tree.
        package = os.path.dirname(os.path.dirname(os.path.abspath(widgetd.__file__)))
        env["PYTHONPATH"] = package + os.pathsep + env.get("PYTHONPATH", "")
        return subprocess.Popen(
            [sys.executable, LOCKSCREEN, "--socket", self.daemon.socket, *arguments],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        )

    def run_shell(self, command: str, extra_path: str = "", replace_shell: bool = True) -> subprocess.Popen:
        """``command`` as a program running it would: sh, widgetctl on PATH, our daemon.

        ``replace_shell``: sh execs the command, so that a signal reaches it.
        """
        scratch = tempfile.mkdtemp(prefix="widgetd-examples-")
        self.addCleanup(shutil.rmtree, scratch, True)
        env = dict(os.environ)
        env["PATH"] = os.pathsep.join(p for p in (extra_path, widgetctl_directory(scratch), env.get("PATH", "")) if p)
        env["WIDGETD_SOCKET"] = self.daemon.socket
        return subprocess.Popen(["sh", "-c", ("exec " if replace_shell else "") + command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)

    def read_line(self, process: subprocess.Popen, timeout: float = 30) -> dict:
        """The next line a watching command prints, as JSON."""
        return json.loads(self.read_block_of(process, b"\n", timeout))

    def stop(self, process: subprocess.Popen) -> None:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)

    def read_block(self, process: subprocess.Popen, containing: str, timeout: float = 30) -> str:
        """Reads blocks (separated by blank lines) until one contains ``containing``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.read_block_of(process, b"\n\n", deadline - time.monotonic())
            if containing in text:
                return text
        self.fail("lockscreen.py printed no block with %r" % containing)

    def read_block_of(self, process: subprocess.Popen, separator: bytes, timeout: float) -> str:
        """The output up to the next ``separator``."""
        assert process.stdout is not None
        fd = process.stdout.fileno()
        pending = self.__dict__.setdefault("_pending", bytearray())
        selector = selectors.DefaultSelector()
        selector.register(fd, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while True:
            if separator in pending:
                end = pending.index(separator)
                text = pending[:end].decode("utf-8")
                del pending[: end + len(separator)]
                return text
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(timeout=remaining):
                break
            data = os.read(fd, 65536)
            if not data:
                break
            pending += data
        _, errors = process.communicate(timeout=30) if process.poll() is not None else (b"", b"")
        self.fail("no output within %ss (%s)" % (timeout, errors.decode("utf-8", "replace")))

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
        # The fields in the provider's order (city, temperature, home), as a lock screen
        # draws them, not sorted by name.
        block = output.decode("utf-8").split(MAIL + " · lockScreen · content", 1)[1].split("\n\n", 1)[0]
        names = [line.split()[0] for line in block.strip("\n").split("\n")]
        self.assertEqual(names, ["city", "temperature", "home"])

    def test_roles_and_actions_are_drawn_as_a_lock_screen_draws_them(self) -> None:
        widget = "com.example.health/steps#lock-1"
        ends = (fx.now() + dt.timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
        log = {"id": "log", "title": "Log a walk", "kind": "button", "authentication": "requiresAuthentication"}
        with widgetd.Client(self.daemon.socket) as c:
            c.put_timeline(widget, [{
                "date": fx.now() - dt.timedelta(minutes=1),
                "fields": {
                    "name": {"value": "Steps", "role": "title"},
                    "count": {"value": "6,200", "role": "value"},
                    "goal": {"value": 0.62, "role": "gauge"},
                    "ends": {"value": ends, "role": "date", "style": "timer"},
                    "note": {"value": "Walk after lunch", "role": "detail"},
                    "raw": {"value": 6200},
                },
                "actions": [log],
            }], policy="never", placeholder={
                "fields": {"name": {"value": "Steps", "privacy": "public", "role": "title"}},
                "actions": [log],
            })

        def once() -> str:
            output, errors = self.run_lockscreen("--once", widget).communicate(timeout=30)
            self.assertEqual(errors, b"")
            return output.decode("utf-8")

        shown = once()
        # The roles' layout, in order, and no field name (nor the role-less field).
        lines = shown.split(widget + " · lockScreen · content\n", 1)[1].split("\n\n", 1)[0].split("\n")
        self.assertEqual(lines[:3], ["  Steps", "  6,200", "  [██████----] 62%"], shown)
        self.assertRegex(lines[3], r"^  0[45]:[0-5]\d$")
        self.assertEqual(lines[4:], ["  Walk after lunch", "  [ Log a walk ]"], shown)
        for name in ("name", "count", "goal", "ends", "note", "raw", "6200"):
            self.assertNotIn(name, shown.split("\n", 1)[1])
        with widgetd.Client(self.daemon.socket) as c:
            c.lock()
            try:
                locked = once()
            finally:
                c.unlock(PASSCODE)
        self.assertIn(widget + " · lockScreen · placeholder\n  Steps\n  [ Unlock to Log a walk ]\n", locked)
        self.assertNotIn("6,200", locked)

    def test_the_waybar_module_prints_waybar_json_with_redacted_fields_as_bars(self) -> None:
        with open(os.path.join(EXAMPLES, "waybar", "config.jsonc")) as f:
            # JSONC: comments stand on lines of their own.
            config = json.loads("\n".join(line for line in f if not line.strip().startswith("//")))
        module = config["custom/weather"]
        self.assertEqual(module["return-type"], "json")
        process = self.run_shell(module["exec"])
        try:
            line = self.read_line(process)
            self.assertEqual(set(line), {"text", "tooltip", "class", "alt"})
            self.assertEqual((line["class"], line["text"]), ("content", "7 · Lyon"))
            self.assertEqual(set(module["format-icons"]), {"content", "redacted", "placeholder"})
            with widgetd.Client(self.daemon.socket) as c:
                c.lock()
                c.set_settings(lock_screen_widgets_access=False)
                try:
                    redacted = self.read_line(process)
                    while redacted["class"] == "content":  # the lock, before the setting
                        redacted = self.read_line(process)
                    self.assertEqual((redacted["class"], redacted["text"]), ("redacted", "7 · Lyon"))
                    self.assertIn("home: ••••", redacted["tooltip"])
                    self.assertNotIn("12 rue X", json.dumps(redacted, ensure_ascii=False))
                finally:
                    c.set_settings(lock_screen_widgets_access=True)
                    c.unlock(PASSCODE)
        finally:
            self.stop(process)
        with open(os.path.join(EXAMPLES, "waybar", "style.css")) as f:
            style = f.read()
        for mode in ("content", "redacted", "placeholder"):
            self.assertIn("#custom-weather." + mode, style)

    def test_the_waybar_media_module_fills_text_tooltip_and_percentage_from_roles(self) -> None:
        with open(os.path.join(EXAMPLES, "waybar", "config.jsonc")) as f:
            config = json.loads("\n".join(line for line in f if not line.strip().startswith("//")))
        module = config["custom/media"]
        with open(os.path.join(REPOSITORY, "config", "timelines", "com.example.media.json")) as f:
            timeline = json.load(f)
        with widgetd.Client(self.daemon.socket) as c:
            c.put_timeline(timeline["widget"], timeline["entries"], family=timeline["family"],
                           policy=timeline["policy"], placeholder=timeline["placeholder"])
        process = self.run_shell(module["exec"])
        try:
            line = self.read_line(process)
        finally:
            self.stop(process)
        # The track, the artist, and 132 of 545 seconds played.
        self.assertEqual(line, {"text": "So What", "tooltip": "Miles Davis", "percentage": 24,
                                "class": "content", "alt": "content"})

    def test_the_eww_listeners_print_what_the_widget_reads(self) -> None:
        with open(os.path.join(EXAMPLES, "eww", "eww.yuck")) as f:
            commands = re.findall(r'^\s*"(widgetctl watch [^"]+)"\)?\s*$', f.read(), re.MULTILINE)
        self.assertEqual(len(commands), 2)
        for command in commands:
            with self.subTest(command=command):
                process = self.run_shell(command)
                try:
                    line = self.read_line(process)
                finally:
                    self.stop(process)
                if "--format waybar" in command:
                    self.assertEqual(line["class"], "content")
                else:
                    self.assertEqual(line["mode"], "content")
                    self.assertEqual(line["entry"]["fields"]["city"]["value"], "Lyon")

    def test_the_sxmo_hooks_lock_and_ask_for_the_passcode_to_unlock(self) -> None:
        scratch = tempfile.mkdtemp(prefix="widgetd-sxmo-")
        self.addCleanup(shutil.rmtree, scratch, True)
        ran = os.path.join(scratch, "ran")
        # Sxmo's own hooks and sxmo_terminal.sh, as stand-ins that say they ran.
        defaults = os.path.join(scratch, "default_hooks")
        os.makedirs(defaults)
        for name in ("sxmo_hook_lock.sh", "sxmo_hook_unlock.sh", "sxmo_hook_screenoff.sh", "sxmo_terminal.sh"):
            path = os.path.join(scratch if name == "sxmo_terminal.sh" else defaults, name)
            with open(path, "w") as f:
                f.write('#!/bin/sh\necho "%s $*" >> "%s"\n' % (name, ran))
            os.chmod(path, 0o755)
        hooks = os.path.join(EXAMPLES, "sxmo", "hooks")

        def hook(name: str) -> None:
            process = self.run_shell(
                'SXMO_DEFAULT_HOOKS="%s" "%s"' % (defaults, os.path.join(hooks, name)), extra_path=scratch,
                replace_shell=False)
            _, errors = process.communicate(timeout=30)
            self.assertEqual(process.returncode, 0, errors.decode("utf-8", "replace"))

        def lines() -> list:
            with open(ran) as f:
                return f.read().splitlines()

        with widgetd.Client(self.daemon.socket) as c:
            hook("sxmo_hook_lock.sh")
            self.assertEqual(c.status()["state"], "locked")
            self.assertEqual(lines(), ["sxmo_hook_lock.sh "])
            try:
                hook("sxmo_hook_unlock.sh")
                # The terminal is started in the background: wait for it.
                deadline = time.monotonic() + 30
                while "sxmo_terminal.sh widgetctl unlock" not in lines() and time.monotonic() < deadline:
                    time.sleep(0.05)
                self.assertIn("sxmo_terminal.sh widgetctl unlock", lines())
                self.assertIn("sxmo_hook_unlock.sh ", lines())
            finally:
                c.unlock(PASSCODE)
            # Unlocked already (by PAM, say): no passcode is asked for.
            os.unlink(ran)
            hook("sxmo_hook_unlock.sh")
            hook("sxmo_hook_screenoff.sh")
            self.assertEqual(lines(), ["sxmo_hook_unlock.sh ", "sxmo_hook_screenoff.sh "])
            self.assertEqual(c.status()["state"], "locked")
            c.unlock(PASSCODE)


if __name__ == "__main__":
    unittest.main()
