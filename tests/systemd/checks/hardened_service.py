#!/usr/bin/python3
"""The hardened service end to end: a provider registered as an administrator does (a
file in providers.d, then a reload through the unit's ExecReload=, no restart), a
passcode, PutTimeline from the provider's uid and not from another, lock ->
placeholder, unlock -> content; the installed widgetctl finds the system socket."""
import json
import re
import sys

from container import (PASSCODE, PROVIDER_UID, SECRET, VarlinkError, expect_equal, fail,
                       passed, run)


def content(presentation):
    return presentation["mode"], presentation.get("entry", {}).get("fields", {}).get("count", {}).get("value")


def hardened_service(c):
    with c.installed():
        c.call("io.widgetd.Device.GetStatus")
        c.register_provider()
        pid = c.unit_property("widgetd.service", "MainPID")
        c.inside("systemctl", "reload", "widgetd.service")
        expect_equal("MainPID after reload (no restart)", c.unit_property("widgetd.service", "MainPID"), pid)

        c.call("io.widgetd.Device.SetPasscode", {"new": PASSCODE})
        c.put_timeline()
        # The daemon tells peers apart through the unit's sandbox (SO_PEERCRED): another
        # uid with the same socket access is refused.
        try:
            c.call_as(PROVIDER_UID + 1, "io.widgetd.Provider.PutTimeline", c.timeline())
            fail(f"PutTimeline as uid {PROVIDER_UID + 1}, no provider's user, was accepted")
        except VarlinkError as error:
            expect_equal("PutTimeline by a stranger", error.name, "io.widgetd.PermissionDenied")

        expect_equal("unlocked presentation", content(c.presentation()), ("content", SECRET))
        c.call("io.widgetd.Device.Lock")
        locked = c.presentation()
        expect_equal("locked presentation", locked["mode"], "placeholder")
        if SECRET in json.dumps(locked):
            fail(f"the locked presentation carries the secret: {locked}")
        c.call("io.widgetd.Device.Unlock", {"passcode": PASSCODE})
        expect_equal("presentation after unlock", content(c.presentation()), ("content", SECRET))
        passed(f"hardened service end to end: provider registered by reload, passcode, PutTimeline "
               f"(uid {PROVIDER_UID}), lock -> placeholder, unlock -> content")

        status = c.inside("widgetctl", "status", what="widgetctl status as root")
        if not re.search(r"^State: *unlocked", status, re.MULTILINE):
            fail(f"widgetctl status as root: {status}")
        passed("the installed widgetctl, as root, finds the system socket")


sys.exit(run(hardened_service))
