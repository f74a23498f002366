#!/usr/bin/python3
"""A provider started on demand ([Provider] Unit=, DESIGN §14): alice's widgetd holds an
action of a provider none of whose connections watches, asks her systemd user manager
to start the provider's unit, and delivers the action once the provider watches."""
import json
import sys
import time

from container import expect_equal, fail, passed, run, wait_for

PROVIDER = "com.example.ondemand"
UNIT = "widgetd-test-ondemand.service"
WIDGET = f"{PROVIDER}/tap"
HOME = "/home/alice"


def provider_on_demand(c):
    with c.installed():
        c.add_alice()
        c.alice_inside("mkdir", "-p", f"{HOME}/.config/widgetd/providers.d", f"{HOME}/.config/systemd/user")
        c.write(f"{HOME}/.config/widgetd/providers.d/{PROVIDER}.conf",
                f"[Provider]\nId={PROVIDER}\nUser=alice\nDataProtection=none\nUnit={UNIT}\n", user="alice")
        # The provider: it watches its actions and prints each one (to its journal).
        c.write(f"{HOME}/.config/systemd/user/{UNIT}",
                f"[Service]\nExecStart=/usr/bin/widgetctl actions --provider {PROVIDER}\n", user="alice")
        c.alice_inside("systemctl", "--user", "daemon-reload")
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        timeline = {"entries": [{"date": now, "fields": {"t": {"value": "Tap", "role": "title"}},
                                 "actions": [{"id": "tap", "title": "Tap", "kind": "button",
                                              "authentication": "alwaysAllowed"}]}],
                    "policy": {"kind": "never"}}
        c.write(f"{HOME}/tap.json", json.dumps(timeline), user="alice")
        # The first call activates her widgetd through its socket.
        c.alice_inside("widgetctl", "put", WIDGET, f"{HOME}/tap.json")
        expect_equal("the provider's unit before any action",
                     c.as_alice("systemctl", "--user", "is-active", UNIT).stdout.strip(), "inactive")

        acted = c.alice_inside("widgetctl", "act", WIDGET, "tap", "--wait")
        if "delivered" not in acted.split():
            fail(f"widgetctl act --wait: {acted.strip()!r}, expected the action delivered once the unit watched")
        expect_equal("the provider's unit after the action",
                     c.as_alice("systemctl", "--user", "is-active", UNIT).stdout.strip(), "active")
        wait_for(10, "the provider did not print the action it was sent",
                 lambda: "tap" in c.run("journalctl", "--no-pager", "-o", "cat",
                                        f"_SYSTEMD_USER_UNIT={UNIT}").stdout)
        c.as_alice("systemctl", "--user", "stop", UNIT)
        passed(f"an action with no provider watching started {UNIT} through alice's user manager, "
               f"was held, and reached the provider once it watched")


sys.exit(run(provider_on_demand))
