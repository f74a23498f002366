#!/usr/bin/python3
"""The wallpaper io.widgetd.lockscreen inside Plasma 5.27's greeter (kscreenlocker_greet
--testing under Xvfb), read through AT-SPI (scripts/test-plasma).

The same checks as tests/gnome/check.py, whose helpers it uses (the accessible tree spoken
to with GDBus, widgetd, the provider's WatchActions): with widgetd locked the class-C
card shows content drawn from roles and the class-A card its placeholder, its secret
nowhere in the greeter's tree; an alwaysAllowed toggle pressed through AT-SPI reaches the
provider while locked, a requiresAuthentication button waits for the unlock; `widgetctl
unlock` shows class A live and `widgetctl lock` takes its secret out of the tree (timed);
widgetd stopped: every card goes, the greeter runs on; started: the cards come back.

The timings are measured as tests/gnome and tests/phosh measure theirs: from widgetd's
reply (read on a thread of its own) to the card's accessible-description change as AT-SPI
delivers it (the wallpaper keeps a card's items while its widget is shown, so the change
is an event on the same object), and split by the wallpaper's own timestamps
(widgetd.timing in the greeter's log: plugin_split()).
"""

import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gnome"))
import check as g  # noqa: E402
from gi.repository import Gio, GLib  # noqa: E402

ENV = os.environ
ROUNDS = int(ENV.get("ROUNDS", "10"))
# The median lock → placeholder may take at most this long, no round longer than
# g.LOCK_ROUND_LIMIT: GNOME Shell's and phosh's bounds (the goal: within a frame).
LOCK_DEADLINE = g.LOCK_DEADLINE
HEART, FORECAST, PLAYER = g.HEART, g.FORECAST, g.PLAYER


def log(message):
    print(f"test-plasma: {message}", flush=True)


def greeter_application():
    for app in g.A11Y.children(("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")):
        if g.A11Y.name(app) in ("kscreenlocker_greet", "kscreenlocker_greet --testing"):
            return app
    return None


def greeter_alive():
    with open(ENV["GREETER_PID_FILE"]) as f:
        pid = int(f.read())
    with open(f"/proc/{pid}/stat") as f:
        if f.read().split(") ", 1)[1].startswith("Z"):
            raise g.Failure("the greeter exited")
    return True


GREETER = "/usr/lib/x86_64-linux-gnu/libexec/kscreenlocker_greet"


def stop_greeter():
    with open(ENV["GREETER_PID_FILE"]) as f:
        pid = int(f.read())
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    g.wait_for("the greeter gone from the accessibility bus", lambda: greeter_application() is None, 30)


def greeter_with_socket(path):
    """A new greeter whose wallpaper reads `path` (kscreenlockerrc rewritten); the
    previous one must be stopped. Returns (the process, its application node)."""
    config = os.path.join(ENV["XDG_CONFIG_HOME"], "kscreenlockerrc")
    with open(config) as f:
        lines = [line for line in f.read().splitlines() if not line.startswith("Socket=")]
    with open(config, "w") as f:
        f.write("\n".join(lines + [f"Socket={path}"]) + "\n")
    log_file = open(os.path.join(ENV["ARTIFACTS"], "greeter.log"), "a")
    process = subprocess.Popen([GREETER, "--testing"], stdout=log_file, stderr=subprocess.STDOUT)
    with open(ENV["GREETER_PID_FILE"], "w") as f:
        f.write(str(process.pid))
    app = g.wait_for("the new greeter on the accessibility bus", greeter_application, 60)
    return process, app


def press(node):
    """The node's press (or toggle) action, as Qt names it."""
    a11y = g.A11Y
    count = a11y.bus.call_sync(node[0], node[1], "org.freedesktop.DBus.Properties", "Get",
                               GLib.Variant("(ss)", ("org.a11y.atspi.Action", "NActions")), None,
                               0, 5000, None).unpack()[0]
    names = [a11y.call(node, "org.a11y.atspi.Action", "GetName", GLib.Variant("(i)", (i,)))[0] for i in range(count)]
    for wanted in ("press", "toggle"):
        for index, name in enumerate(names):
            if name.lower() == wanted:
                return a11y.call(node, "org.a11y.atspi.Action", "DoAction", GLib.Variant("(i)", (index,)))[0]
    raise g.Failure(f"no press action on {node}: {names}")


def screenshot(name):
    path = os.path.join(ENV["ARTIFACTS"], name)
    subprocess.run(["import", "-window", "root", path], check=True, timeout=30)
    log(f"screenshot {path}")


class DescriptionEvents:
    """Each accessible-description change as AT-SPI delivers it, with the time it arrived
    (tests/gnome/check.py's, but Qt's event carries the changed object's reference rather
    than the new description: the description is read from the object when asked)."""

    def __init__(self):
        self.events = []

        def on_signal(connection, sender, path, interface, signal, parameters):
            if parameters.unpack()[0] == "accessible-description":
                self.events.append((time.monotonic(), (sender, path)))

        g.A11Y.bus.signal_subscribe(None, "org.a11y.atspi.Event.Object", "PropertyChange", None, None,
                                    Gio.DBusSignalFlags.NONE, on_signal)
        g.A11Y.call(("org.a11y.atspi.Registry", "/org/a11y/atspi/registry"), "org.a11y.atspi.Registry",
                    "RegisterEvent", GLib.Variant("(sass)", ("object:property-change:accessible-description", [], "")))

    def first_after(self, index, node, value):
        for when, changed in self.events[index:]:
            if changed == node and g.A11Y.description(node) == value:
                return when
        return None


def timed(daemon, events, cards, method, parameters, widget, expected):
    """Seconds from widgetd's reply to `method` to the card's description change as
    AT-SPI delivers it (as tests/gnome and tests/phosh measure), and the monotonic time
    just before the call (for the wallpaper's own timestamps, plugin_split())."""
    card = cards.card(widget)
    if card is None:
        raise g.Failure(f"no card of {widget} before {method}")
    mark = len(events.events)
    called = time.monotonic()
    replied, _, changed = daemon.call(method, parameters, then=lambda: events.first_after(mark, card, expected))
    if cards.mode(widget) != expected:
        raise g.Failure(f"{widget}: {cards.mode(widget)} after {method}, not {expected}")
    return changed - replied, (called, replied, changed, expected)


TIMING = re.compile(r"widgetd\.timing: (\S+) (\S+): read (\d+), drawn (\d+)$")


def plugin_split(rounds):
    """Each timed round split by the wallpaper's own timestamps (widgetd.timing in the
    greeter's log): reply → the Watch update read and parsed by the wallpaper (widgetd's
    fan-out; negative when it came before the reply), read → the cards handed to QML and
    their items and accessible objects updated (the wallpaper), drawn → the AT-SPI event
    at this check (the accessibility bus and this loop; Qt sends the event while it
    updates the items, before "drawn" is taken, so this part can be slightly negative).
    Milliseconds, by name."""
    marks = []
    with open(os.path.join(ENV["ARTIFACTS"], "greeter.log"), errors="replace") as f:
        for line in f:
            match = TIMING.search(line.rstrip())
            if match and match.group(1) == HEART:
                marks.append((match.group(2), int(match.group(3)) / 1e9, int(match.group(4)) / 1e9))
    split = {"fanout_ms": [], "plugin_ms": [], "atspi_ms": []}
    for called, replied, changed, expected in rounds:
        found = next(((read, drawn) for mode, read, drawn in marks if mode == expected and read >= called), None)
        if found is None:
            raise g.Failure(f"no widgetd.timing line for a {expected} round in the greeter's log")
        read, drawn = found
        split["fanout_ms"].append((read - replied) * 1000)
        split["plugin_ms"].append((drawn - read) * 1000)
        split["atspi_ms"].append((changed - drawn) * 1000)
    return {name: {"median": round(statistics.median(values), 2), "max": round(max(values), 2)}
            for name, values in split.items()}


def main():
    g.A11Y = g.A11y()
    daemon = g.Daemon()
    results = {}
    watcher = None
    app = None
    try:
        # No retry: scripts/test-plasma starts the accessibility bus before the greeter.
        app = g.wait_for("the greeter on the accessibility bus", greeter_application, 30)
        cards = g.Cards(app)
        daemon.start()
        timelines = ENV["WIDGETD_TIMELINES"]
        for widget, name in ((HEART, "heart"), (FORECAST, "forecast"), (PLAYER, "player")):
            daemon.ctl("put", widget, os.path.join(timelines, f"{name}.json"))
        daemon.ctl("passcode", "set", "--passcode-stdin", stdin=g.PASSCODE + "\n")
        daemon.ctl("lock")
        # The wallpaper lists widgets when it connects: widgetd was absent at its start,
        # so this also proves it retries.
        g.wait_for("the cards", lambda: cards.find_box() and cards.mode(FORECAST) == "content"
                   and cards.mode(HEART) == "placeholder" and cards.mode(PLAYER) == "content", 60)
        drawn = cards.drawn(FORECAST)
        for text in ("Weather", "18 °C", "Rue de la République", "Light rain"):
            if text not in drawn:
                raise g.Failure(f"the class-C card does not draw {text!r}: {drawn}")
        if g.secrets_in_tree(app) != [FORECAST]:
            raise g.Failure(f"secrets in the tree while widgetd is locked: {g.secrets_in_tree(app)}")
        if g.A11Y.find(cards.card(HEART), "redacted") is None:
            raise g.Failure("the class-A placeholder draws no redaction bar named redacted")
        names = [t for t in cards.drawn(HEART) if t in ("title", "heartRate", "steps")]
        if names != ["title", "heartRate", "steps"]:
            raise g.Failure(f"the fields of an entry without roles are not in the timeline's order: {names}")
        log("widgetd absent at the greeter's start, then locked: class C shows content drawn from roles, "
            "class A its placeholder with a redaction bar: ok")

        watcher = g.ActionWatcher("com.example.media")
        g.pump(0.3)
        press(g.wait_for("the Play button", lambda: cards.named(PLAYER, "Play"), 10))
        delivered = g.wait_for("the toggle at the provider", lambda: watcher.delivered("play"), 10)
        if delivered.get("isOn") is not True or delivered.get("whileLocked") is not True:
            raise g.Failure(f"the toggle was delivered as {delivered}")
        # Each change rebuilds the card: find the button again once the toggle is drawn.
        g.pump(0.5)
        press(g.wait_for("the Open button", lambda: cards.named(PLAYER, "Open"), 10))
        g.wait_for("the button waiting", lambda: any("Waiting for unlock" in t for t in cards.drawn(PLAYER))
                   or g.A11Y.description(cards.named(PLAYER, "Open")) == "Waiting for unlock", 10)
        if watcher.delivered("open"):
            raise g.Failure("the button's action reached the provider while locked")
        log("an alwaysAllowed toggle pressed through AT-SPI reaches WatchActions while locked; "
            "a requiresAuthentication button waits: ok")

        daemon.ctl("unlock", "--passcode-stdin", stdin=g.PASSCODE + "\n")
        g.wait_for("class A with content", lambda: cards.mode(HEART) == "content", 10)
        g.wait_for("the held action at the provider", lambda: watcher.delivered("open"), 10)
        log("widgetctl unlock: class A shows content, the held action reaches the provider: ok")
        screenshot("plasma-unlocked.png")
        daemon.ctl("lock")
        g.wait_for("class A's placeholder", lambda: cards.mode(HEART) == "placeholder", 10)
        if HEART in g.secrets_in_tree(app):
            raise g.Failure("the class-A secret stayed in the greeter's tree after widgetctl lock")
        log("widgetctl lock: class A's secret is gone from the greeter's accessible tree: ok")
        screenshot("plasma-locked.png")

        events = DescriptionEvents()
        unlocks, locks, rounds = [], [], []
        for _ in range(ROUNDS):
            took, marks = timed(daemon, events, cards, "io.widgetd.Device.Unlock", {"passcode": g.PASSCODE}, HEART,
                                "content")
            unlocks.append(took)
            rounds.append(marks)
            took, marks = timed(daemon, events, cards, "io.widgetd.Device.Lock", {}, HEART, "placeholder")
            locks.append(took)
            rounds.append(marks)
        for name, values in (("unlock_to_content_ms", unlocks), ("lock_to_placeholder_ms", locks)):
            ms = sorted(v * 1000 for v in values)
            results[name] = {"rounds": len(ms), "median": round(statistics.median(ms), 2),
                             "p90": round(ms[int(0.9 * (len(ms) - 1))], 2), "max": round(ms[-1], 2),
                             "min": round(ms[0], 2), "all": [round(v, 2) for v in ms]}
            log(f"{name}: median {results[name]['median']} ms, p90 {results[name]['p90']} ms, "
                f"max {results[name]['max']} ms over {len(ms)} rounds")
        results["split"] = plugin_split(rounds)
        log("where the time goes (median, max; both directions): " + ", ".join(
            f"{name} {value['median']}, {value['max']} ms" for name, value in results["split"].items()))
        if statistics.median(locks) > LOCK_DEADLINE or max(locks) > g.LOCK_ROUND_LIMIT:
            raise g.Failure(f"locks reached the tree in {results['lock_to_placeholder_ms']['median']} ms (median)")

        watcher.close()
        watcher = None
        daemon.stop()
        g.wait_for("no card", lambda: not cards.cards(), 10)
        if g.secrets_in_tree(app):
            raise g.Failure(f"a secret stayed after widgetd stopped: {g.secrets_in_tree(app)}")
        greeter_alive()
        daemon.start()
        g.wait_for("the cards back", lambda: cards.mode(HEART) == "placeholder", 30)
        log("widgetd stopped: every card goes, the greeter runs on; started again: the cards come back: ok")
        greeter_alive()
        log("the greeter still running: ok")

        # Sockets that are not widgetd, each read by a greeter of its own (the wallpaper
        # reads its settings when the greeter starts): a fake widgetd of this user draws
        # its card (the control), the same listened on by nobody is refused; malformed
        # and endless replies draw nothing; each greeter runs on.
        for mode, as_nobody, shown in (("good", False, True), ("good", True, False),
                                       ("malformed", False, False), ("endless", False, False)):
            process, path = g.fake(mode, as_nobody)
            try:
                stop_greeter()
                _, app = greeter_with_socket(path)
                bad = g.Cards(app)
                if shown:
                    g.wait_for("the fake widgetd's card", lambda: bad.card(g.BAD) is not None, 30)
                else:
                    g.wait_for("the wallpaper's column", bad.find_box, 30)
                    g.pump(2.0)
                    if bad.card(g.BAD) is not None:
                        raise g.Failure(f"a card from a {mode} socket{' of nobody' if as_nobody else ''}")
                greeter_alive()
            finally:
                process.kill()
                process.wait()
            what = ("a fake widgetd of this user: its card is drawn (the control)" if shown else
                    "a socket listened on by nobody: refused, no card" if as_nobody else
                    f"{mode} replies: no card")
            log(f"{what}; the greeter runs on: ok")
    except g.Failure:
        # What the greeter's tree held, for the failure's reader.
        try:
            lines = []
            g.A11Y.walk(app, lambda node: lines.append(f"{g.A11Y.role(node)}: {g.A11Y.name(node)!r} "
                                                       f"{g.A11Y.description(node)!r}"))
            with open(os.path.join(ENV["ARTIFACTS"], "tree.txt"), "w") as f:
                f.write("\n".join(lines) + "\n")
        except Exception:  # noqa: BLE001 (a dump, after the failure)
            pass
        raise
    finally:
        if watcher is not None:
            watcher.close()
        daemon.stop()
        for directory in g.CLEANUP:
            shutil.rmtree(directory, ignore_errors=True)
        with open(os.path.join(ENV["ARTIFACTS"], "timings.json"), "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        sys.exit(main())
    except g.Failure as failure:
        log(f"FAIL: {failure}")
        sys.exit(1)
