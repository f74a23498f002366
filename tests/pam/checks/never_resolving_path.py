#!/usr/bin/python3
"""A socket path whose resolution never ends (a FUSE file system that never answers,
as any user may mount on a directory of theirs): connect(2) itself hangs, so the path
is resolved within the deadline, by a child that is killed at it."""
import sys
import time

from testbed import PW1, run


def never_resolving_path(t):
    t.set_password(PW1)
    t.service_without_module("widgetd-test-none")
    t.service("widgetd-test-fuse", f"socket={t.dir}/fuse/widgetd.sock")
    base = t.quickest_login("widgetd-test-none", PW1) or 0
    t.never_resolving(f"{t.dir}/fuse")
    started = time.monotonic()
    succeeded = t.pamtester("widgetd-test-fuse", [PW1], "authenticate", timeout=10) == 0
    slow = int((time.monotonic() - started) * 1000)
    t.check("a socket path that never resolves: the stack still succeeds", succeeded)
    t.check(f"a socket path that never resolves: bounded by the 1 s connect deadline ({slow} ms, {base} ms without the module)",
            700 <= slow - base < 1700)


sys.exit(run(never_resolving_path))
