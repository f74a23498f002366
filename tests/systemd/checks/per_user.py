#!/usr/bin/python3
"""Per-user mode: a user (alice, lingering) enables her own widgetd.socket; a
connection activates her widgetd, which keeps its state in ~/.local/state/widgetd,
and the installed widgetctl finds her socket by itself ($XDG_RUNTIME_DIR)."""
import os
import re
import stat
import sys

from container import ALICE_RUNTIME, expect_equal, fail, passed, run


def per_user(c):
    with c.installed():
        c.add_alice()
        # Root on the host reaches the user's socket through the container's root
        # directory (root is an admin for every widgetd).
        user_socket = f"/proc/{c.leader}/root{ALICE_RUNTIME}/widgetd/widgetd.sock"
        if not os.path.exists(user_socket) or not stat.S_ISSOCK(os.stat(user_socket).st_mode):
            fail("the user socket is not at $XDG_RUNTIME_DIR/widgetd/widgetd.sock")
        state = c.call("io.widgetd.Device.GetStatus", path=user_socket)["state"]
        expect_equal("the per-user widgetd.service after a connection",
                     c.alice_inside("systemctl", "--user", "show", "-P", "ActiveState", "widgetd.service").strip(), "active")
        if not c.succeeds("test", "-d", "/home/alice/.local/state/widgetd"):
            fail("the per-user daemon keeps no state in ~/.local/state/widgetd")
        status = c.alice_inside("widgetctl", "status")
        if not re.search(r"^State: *unlocked", status, re.MULTILINE):
            fail(f"widgetctl status as alice: {status}")
        passed(f"per-user mode: systemctl --user enable --now widgetd.socket; activated as alice "
               f"(state {state}); widgetctl finds it")


sys.exit(run(per_user))
