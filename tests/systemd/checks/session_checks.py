#!/usr/bin/python3
"""Following the session (DESIGN §8) under the real logind: alice's own widgetd
watches her sessions; a session lock, LockedHint and the end of her last session each
lock it, and a host's Watch gets placeholders; a session unlock releases no key.
(PrepareForSleep cannot be raised in a container: SessionLockTests raises it on a
private bus.) The per-user units, the personal-device default, pass systemd's own lint."""
import json
import sys
import time

from container import (ALICE_PASSCODE, SECRET, WIDGET, expect_equal, fail, json_lines, passed,
                       run, wait_for)

WATCH_LOG = "/tmp/alice-watch.log"


def body():
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return {"family": "accessoryRectangular",
            "entries": [{"date": now, "fields": {"count": {"value": SECRET, "privacy": "sensitive"}}}],
            "placeholder": {"fields": {"count": {"value": "--"}}}}


def watch_count(c, mode):
    """How many presentations in MODE the host's Watch has printed."""
    lines = json_lines(c.run("cat", WATCH_LOG).stdout)
    return sum(1 for line in lines if line.get("presentation", {}).get("mode") == mode)


def locked(c):
    return c.alice_status().get("state") == "locked"


def unlock(c):
    c.alice_inside("widgetctl", "unlock", "--passcode-stdin", input=ALICE_PASSCODE + "\n")


def session_checks(c):
    with c.installed():
        c.add_alice_with_passcode()
        verify = c.as_alice("systemd-analyze", "--user", "verify", "--man=no", "/usr/lib/systemd/user/widgetd.socket",
                            "/usr/lib/systemd/user/widgetd.service")
        if verify.returncode != 0:
            fail(f"systemd-analyze --user verify rejects the user units:\n{verify.stdout}{verify.stderr}")
        if verify.stdout or verify.stderr:
            fail(f"systemd-analyze --user verify warns about the user units:\n{verify.stdout}{verify.stderr}")
        timeline = json.dumps(body())
        wait_for(10, "widgetctl put as alice", lambda: c.as_alice("widgetctl", "put", WIDGET, "-", input=timeline).returncode == 0)

        session_id, session_path = c.start_session("alice-session")
        # A host (alice) watching her widget while loginctl locks the session.
        watch = c.spawn("runuser", "-u", "alice", "--", "env", "XDG_RUNTIME_DIR=/run/user/1000", "sh", "-c",
                        f"timeout 20 widgetctl --json watch '{WIDGET}' > {WATCH_LOG} 2>&1")
        try:
            wait_for(10, "the host's Watch saw no content before the lock", lambda: watch_count(c, "content") >= 1)
            c.inside("loginctl", "lock-session", session_id)
            wait_for(10, "loginctl lock-session did not lock alice's widgetd", lambda: locked(c))
            wait_for(10, "the host's Watch got no placeholder after lock-session", lambda: watch_count(c, "placeholder") >= 1)
        finally:
            watch.kill()
            watch.wait()
        # A session unlock releases no key.
        c.inside("loginctl", "unlock-session", session_id)
        time.sleep(0.5)
        if not locked(c):
            fail(f"loginctl unlock-session unlocked alice's widgetd: {c.alice_text_status()}")

        unlock(c)
        c.inside("busctl", "call", "org.freedesktop.login1", session_path, "org.freedesktop.login1.Session",
                 "SetLockedHint", "b", "true")
        wait_for(10, "SetLockedHint true did not lock alice's widgetd", lambda: locked(c))

        unlock(c)
        c.inside("systemctl", "stop", "alice-session.service")
        wait_for(10, "the end of alice's last session did not lock her widgetd", lambda: locked(c))
        expect_equal("alice's widgetd at the end", c.alice_status().get("state"), "locked")
        passed("session: lock-session -> locked and the host's Watch shows a placeholder; unlock-session releases "
               "nothing; SetLockedHint true -> locked; the session's end -> locked; user units pass verify")


sys.exit(run(session_checks))
