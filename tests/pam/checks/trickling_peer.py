#!/usr/bin/python3
"""One deadline for the whole PAM call: a peer that trickles each answer just inside a
per-step deadline (GetStatus over 0.6 s of the 1 s step, leaving room for a loaded
machine; Unlock's WrongPasscode over 2.9 s of the 3 s step; never ReportPasscodeOutOfStep)
must not add the steps up (3.5 s): the call ends by the 3 s bound, under 3.4 s with
the machine's delays, so that steps added up fail."""
import sys

from testbed import PW1, run


def trickling_peer(t):
    t.set_password(PW1)
    t.service_without_module("widgetd-test-none")
    t.service("widgetd-test-trickle", f"socket={t.dir}/trickle.sock")
    base = t.quickest_login("widgetd-test-none", PW1) or 0
    t.peer("trickle", f"{t.dir}/trickle.sock", f"{t.dir}/trickle-requests")
    succeeded, slow = t.timed_login("widgetd-test-trickle", PW1)
    t.check("a trickling peer: the stack still succeeds", succeeded)
    t.check(f"a trickling peer: bounded by the 3 s call deadline ({slow} ms, {base} ms without the module)",
            2700 <= slow - base < 3400)


sys.exit(run(trickling_peer))
