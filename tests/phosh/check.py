#!/usr/bin/python3
"""The lock-screen plugin inside a running phosh, read through AT-SPI (scripts/test-phosh).

Runs in the D-Bus session of a headless phoc and a `phosh --locked` whose lock screen
has the widgetd plugin enabled. It starts and stops widgetd itself, and checks, by
each card's accessible id, what phosh's accessible tree holds at every step:

- widgetd absent: phosh runs, and the plugin shows its neutral empty state;
- widgetd started empty, then widgets stored: the cards come;
- widgetd stopped: every card goes; started again (before the first unlock): the
  cards come back, the class-C one too with its placeholder;
- unlocked: both cards show content, the stale one marked;
- locked: the class-A card shows its placeholder within LOCK_DEADLINE of the lock
  reply (the median of ROUNDS locks) and its secret is nowhere in phosh's tree; the
  class-C card stays;
- "allow access when locked" off: no card shows a sensitive value;
- a widgetd that answers a Watch with a malformed or endless reply, or one nested 32,600
  deep behind a C comment: that card shows nothing, phosh runs on;
- a listener that floods valid Watch replies: phoc still composes changed frames (at
  least 5 a second; the plugin redraws a card at most once a frame);
- a listener run by another user (nobody): it is sent nothing, not even the first call.

- the device's own providers (providers/: calendar, now playing, battery) against their
  real services (evolution-data-server, mpv with mpv-mpris, upowerd on umockdev, set up
  by providers/tests/sources.py as scripts/test-providers does): unlocked, their cards
  show the event, the paused title and the battery's gauge; locked with the calendar
  hidden on the lock screen (hiddenLockScreenWidgets), its card is redacted while the
  player and the battery stay; with lock-screen widgets off the player is redacted too;
  and after widgetd restarts (before the first unlock) all three show their placeholders.

It measures lock → placeholder and unlock → content from the reply to the AT-SPI
name change of the card (docs/BENCHMARKS.md), and takes the screenshots: the README's
(phosh-unlocked.png, phosh-locked.png: the providers' cards), each with NAME.mask.json,
the screen rectangles drawn from the time of day (see tests/phosh/compare-screenshots),
and phosh-examples-unlocked.png, phosh-examples-locked.png (the example widgets).

Environment: WIDGETD_BIN, WIDGETCTL, WIDGETD_CONFIG, WIDGETD_STATE, WIDGETD_SOCKET,
WIDGETD_TIMELINES (a directory with heart.json, forecast.json, media.json), ARTIFACTS, SEAT_FIFO,
SEAT_OUT, PHOSH_PID_FILE, WIDGETD_PID_FILE, FAKE_SOCKET, ROUNDS (timing rounds, default
10), CHECK_DEADLINE (seconds before the check gives up with every thread's stack; 420).
"""

import faulthandler
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

# What the three lock-screen hosts' checks share: tests/hostcheck.py.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import hostcheck  # noqa: E402
from hostcheck import ENV, STATE_CHECKED, Daemon, Failure, logger, pump, wait_for  # noqa: E402

# The providers and what starts their real services, shared with scripts/test-providers.
REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROVIDERS = os.path.join(REPOSITORY, "providers")
sys.path.insert(0, PROVIDERS)
from tests import sources  # noqa: E402
from tests.services import ProviderProcess  # noqa: E402

HEART = "com.example.health/heart"
FORECAST = "com.example.weather/forecast"
MEDIA = "com.example.media/player"
BATTERY = "com.example.power/battery"
# The sensitive values: neither may be in phosh's tree when the lock hides it.
SECRETS = {HEART: "64 bpm", FORECAST: "Rue de la République"}
# The forecast's field values in its timeline's order (temperature, location, summary),
# which is not the order of their names sorted.
FORECAST_ORDER = ["18 °C", "Rue de la République", "Light rain"]
# The longest a class-A card may keep its content after the lock reply (100 ms),
# for the median of the rounds; no round may take longer than LOCK_ROUND_LIMIT (a
# loaded 2-core CI machine can hold phosh off the processor for a while).
LOCK_DEADLINE = 0.100
LOCK_ROUND_LIMIT = 1.0
PASSCODE = "1234"
ROUNDS = int(ENV.get("ROUNDS", "10"))
# AT-SPI's constants (atspi-constants.h).
STATE_PRESSED = 20


log = logger("test-phosh")


# --- phosh, through AT-SPI (tests/hostcheck.py says how) -------------------------------

class A11y(hostcheck.A11y):
    """phosh's tree (GTK 3): the shared reader as it is."""


A11Y = None


def phosh_alive():
    with open(ENV["PHOSH_PID_FILE"]) as f:
        pid = int(f.read())
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        raise Failure("phosh is not running")
    with open(f"/proc/{pid}/stat") as f:
        if f.read().split(") ", 1)[1].startswith("Z"):
            raise Failure("phosh exited")
    return True


def phosh_application():
    for app in A11Y.children(("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")):
        if A11Y.name(app) == "phosh":
            return app
    return None


class Plugin:
    """The plugin's box in phosh's tree, found once by its empty-state label."""

    def __init__(self, app):
        self.app = app
        self.empty = wait_for("the plugin's widgetd-empty label", lambda: A11Y.find_id(app, "widgetd-empty"), 60)
        self.box = A11Y.parent(self.empty)

    def empty_text(self):
        return A11Y.name(self.empty)

    def cards(self):
        holder = A11Y.children(self.box)[0]
        return A11Y.children(holder)

    def card(self, widget):
        for card in self.cards():
            if A11Y.accessible_id(card) == widget:
                return card
        return None

    def state(self, widget):
        """(the card's name, its labels' names) or None."""
        card = self.card(widget)
        if card is None:
            return None
        labels = []

        def visit(node):
            if A11Y.role(node) == "label" and A11Y.name(node) != "Out of date":
                labels.append(A11Y.name(node))

        A11Y.walk(card, visit)
        return A11Y.name(card), labels

    def drawn_order(self, widget, values):
        """Those of `values` that the card's labels show, top to bottom, left to right."""
        card = self.card(widget)
        found = []

        def visit(node):
            if A11Y.role(node) == "label" and A11Y.name(node) in values:
                x, y, _, _ = A11Y.extents(node)
                found.append((y, x, A11Y.name(node)))

        if card is not None:
            A11Y.walk(card, visit)
        return [name for _, _, name in sorted(found)]

    def find(self, widget, accessible_id):
        card = self.card(widget)
        return A11Y.find_id(card, accessible_id) if card is not None else None

    def nodes(self, widget, role):
        """The card's nodes of `role`, in tree order."""
        card = self.card(widget)
        found = []
        if card is not None:
            A11Y.walk(card, lambda node: found.append(node) if A11Y.role(node) == role else None)
        return found

    def mode(self, widget):
        state = self.state(widget)
        if state is None:
            return None
        name = state[0]
        for mode, words in (("placeholder", "locked, placeholder"), ("redacted", "sensitive values hidden"),
                            ("content", ", content"), ("unavailable", "unavailable"), ("waiting", "waiting")):
            if words in name:
                return mode
        return name


def secrets_in_tree(app):
    everything = "\n".join(A11Y.texts(app))
    return [widget for widget, secret in SECRETS.items() if secret in everything]


# --- widgetd --------------------------------------------------------------------------

# --- name-change events, for the timings ------------------------------------------------

class NameEvents:
    """Each card's accessible-name changes as AT-SPI delivers them, with their time."""

    def __init__(self):
        self.events = []
        A11Y.register("object:property-change:accessible-name",
                      lambda when, path, name: self.events.append((when, name)))

    def first_after(self, index, name):
        for when, seen in self.events[index:]:
            if seen == name:
                return when
        return None


def card_name(widget, state):
    return f"{widget.rsplit('/', 1)[1]} widget, {state}"


class WatchTap:
    """A second Watch of one widget beside the plugin's, read on a thread of its own:
    when widgetd's fan-out delivers each new presentation, so that the plugin's part of
    a change (fan-out delivered → AT-SPI change) is told from widgetd's."""

    def __init__(self, widget):
        self.updates = []
        self.connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.connection.connect(ENV["WIDGETD_SOCKET"])
        call = {"method": "io.widgetd.Host.Watch", "parameters": {"widget": widget, "surface": "lockScreen"}, "more": True}
        self.connection.sendall(json.dumps(call).encode() + b"\0")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buffer = b""
        while True:
            try:
                chunk = self.connection.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            while b"\0" in buffer:
                message, buffer = buffer.split(b"\0", 1)
                when = time.monotonic()
                reply = json.loads(message)
                self.updates.append((when, reply.get("parameters", {}).get("presentation", {}).get("mode")))

    def first_after(self, index, mode):
        for when, seen in self.updates[index:]:
            if seen == mode:
                return when
        return None


class ActionTap:
    """io.widgetd.Provider.WatchActions for every provider (root is an admin), read on a
    thread of its own: what the providers receive when the plugin's buttons are pressed."""

    def __init__(self):
        self.deliveries = []
        self.connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.connection.connect(ENV["WIDGETD_SOCKET"])
        call = {"method": "io.widgetd.Provider.WatchActions", "parameters": {}, "more": True}
        self.connection.sendall(json.dumps(call).encode() + b"\0")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buffer = b""
        while True:
            try:
                chunk = self.connection.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            while b"\0" in buffer:
                message, buffer = buffer.split(b"\0", 1)
                reply = json.loads(message)
                if "error" in reply:
                    self.deliveries.append(("error", reply["error"]))
                else:
                    self.deliveries.append(reply.get("parameters", {}))

    def delivered(self, mark, widget, action):
        for delivery in self.deliveries[mark:]:
            if isinstance(delivery, tuple):
                raise Failure(f"WatchActions failed: {delivery[1]}")
            if delivery.get("widget") == widget and delivery.get("action") == action:
                return delivery
        return None


def press_action(plugin, widget, action_id):
    node = wait_for(f"the {action_id} button of {widget}", lambda: plugin.find(widget, action_id))
    if not A11Y.press(node):
        raise Failure(f"the {action_id} button of {widget} did not take the press")


# The tap beside the plugin's Watch of HEART, and the plugin's own part of each timed
# change (seconds from the fan-out's delivery to the AT-SPI change), by direction.
TAP = None
BEYOND_FANOUT = {"content": [], "placeholder": []}


def timed(daemon, events, plugin, method, parameters, widget, expected_name, expected_mode):
    """Calls `method` and returns the seconds from its reply to the card's name change
    (the last change of a redraw: present() names the card after drawing its fields).
    Negative when the change reached AT-SPI before the reply reached the caller."""
    mark = len(events.events)
    tap_mark = len(TAP.updates) if TAP is not None else 0
    replied, _, changed = daemon.call(method, parameters, then=lambda: events.first_after(mark, expected_name))
    if plugin.mode(widget) != expected_mode:
        raise Failure(f"{widget}: {plugin.state(widget)} after {method}, not {expected_mode}")
    if TAP is not None and widget == HEART:
        delivered = wait_for("the tap's update", lambda: TAP.first_after(tap_mark, expected_mode), 10)
        BEYOND_FANOUT[expected_mode].append(changed - delivered)
    return changed - replied


# --- a widgetd that answers badly -------------------------------------------------------

def fake_widgetd(path, watch_reply):
    """A Varlink server on `path` that lists one widget and answers its Watch with
    `watch_reply`: bytes, or a function of the connection that sends what it likes."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)

    def serve(connection):
        buffer = b""
        with connection:
            while True:
                chunk = connection.recv(65536)
                if not chunk:
                    return
                buffer += chunk
                while b"\0" in buffer:
                    message, buffer = buffer.split(b"\0", 1)
                    method = json.loads(message)["method"]
                    if method.endswith("ListWidgets"):
                        reply = {"parameters": {"widgets": [{"widget": "com.example.bad/card", "provider": "com.example.bad",
                                                             "kind": "card", "class": "none", "generation": 1}]}}
                        connection.sendall(json.dumps(reply).encode() + b"\0")
                    elif method.endswith("GetPresentation"):
                        reply = {"parameters": {"presentation": {
                            "widget": "com.example.bad/card", "surface": "lockScreen", "mode": "content", "reasons": [],
                            "luminanceReduced": False, "stale": False, "entry": {"fields": {}}}}}
                        connection.sendall(json.dumps(reply).encode() + b"\0")
                    else:
                        try:
                            if callable(watch_reply):
                                watch_reply(connection)
                            else:
                                connection.sendall(watch_reply)
                        except OSError:
                            return

    def accept():
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(connection,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return server


BAD = "com.example.bad/card"


def bad_presentation(fields):
    """A valid Watch reply of the fake widgetd's card, whose fields are `fields` (JSON text)."""
    return (b'{"parameters":{"presentation":{"widget":"com.example.bad/card","surface":"lockScreen",'
            b'"mode":"content","reasons":[],"luminanceReduced":false,"stale":false,'
            b'"entry":{"fields":' + fields + b'}}},"continues":true}\0')


# Behind a C comment holding a quote, which json-glib skips: an array 32,600 deep (the
# most that fits in a reply), which json-glib reads recursively (4-6 MiB of stack).
COMMENTED = bad_presentation(b'{"title":{"value":"Deep"},"deep":{"value":/*"*/' + b"[" * 32600 + b"]" * 32600 + b"}}")


class Flood:
    """Sends valid Watch replies as fast as the connection takes them, each drawing
    another number, until stopped."""

    def __init__(self):
        self.stopped = threading.Event()
        self.batch = b"".join(bad_presentation(b'{"title":{"value":"Flood"},"n":{"value":"%d"}}' % i)
                              for i in range(500))

    def __call__(self, connection):
        while not self.stopped.is_set():
            connection.sendall(self.batch)


def count_frames(ms):
    """The frames in which phoc's output changed during `ms` milliseconds (seat-helper)."""
    with open(ENV["SEAT_OUT"]) as f:
        mark = len(f.read())
    seat(f"frames {ms}")

    def reported():
        with open(ENV["SEAT_OUT"]) as f:
            for line in f.read()[mark:].splitlines():
                if line.startswith("frames "):
                    return int(line.split()[1]) + 1
        return None

    frames = wait_for("the frame count", reported, ms / 1000 + 30) - 1
    if frames < 0:
        raise Failure("seat-helper could not count frames (wlr-screencopy)")
    return frames


FOREIGN_LISTENER = r"""
import socket, sys
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(sys.argv[1])
server.listen(8)
print("listening", flush=True)
while True:
    connection, _ = server.accept()
    print("accepted", flush=True)
    connection.settimeout(10)
    total = 0
    try:
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                break
            total += len(chunk)
    except OSError:
        pass
    print(f"bytes {total}", flush=True)
    connection.close()
"""


def foreign_listener(path):
    """A listener on `path` run by nobody, which answers nothing and reports what it was
    sent; returns (the process, its report lines)."""
    lines = []
    process = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3",
                                "-c", FOREIGN_LISTENER, path], stdout=subprocess.PIPE, text=True)

    def read():
        for line in process.stdout:
            lines.append(line.strip())

    threading.Thread(target=read, daemon=True).start()
    wait_for("nobody's listener", lambda: "listening" in lines, 30)
    return process, lines


def set_plugin_setting(key, value):
    errors = []

    def attempt():
        try:
            result = subprocess.run(["gsettings", "set", "sm.puri.phosh.plugins.widgetd", key, value],
                                    capture_output=True, text=True, timeout=5)
        except subprocess.TimeoutExpired:
            errors.append("gsettings did not answer within 5 s")
            return False
        if result.returncode != 0:
            errors.append(result.stderr.strip())
        return result.returncode == 0

    try:
        wait_for(f"gsettings set {key} {value}", attempt, 10)
    except Failure as failure:
        raise Failure(f"{failure}: {errors[-1] if errors else 'gsettings never answered'}") from None
    if errors:
        log(f"gsettings set {key}: failed first ({errors[0]})")


# --- screenshots ------------------------------------------------------------------------

def seat(command):
    with open(ENV["SEAT_FIFO"], "w") as fifo:
        fifo.write(command + "\n")


def show_cards_page(plugin):
    """Swipes the lock screen to its first page, where the cards are."""
    def showing():
        cards = plugin.cards()
        return bool(cards) and A11Y.showing(cards[0])

    for _ in range(3):
        if showing():
            break
        seat("move 360 700")
        seat("swipe -600")
        pump(1.5)
    wait_for("the cards' page on screen", showing, 10)
    seat("move 719 1439")
    pump(1.0)


# A label whose text comes from the time of day (a clock time, the day's word): its
# rectangle is masked when a screenshot is compared with the README's.
TIME_TEXT = re.compile(r"\d{1,2}:\d{2}|\b(Today|Tomorrow|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b")


def screen_scale(plugin, png):
    """Pixels per logical unit: the picture's width over the width of the window that
    holds the plugin (phosh's lock screen covers the output)."""
    from gi.repository import GdkPixbuf
    _, pixels, _ = GdkPixbuf.Pixbuf.get_file_info(png)
    node, window = plugin.box, None
    while True:
        parent = A11Y.parent(node)
        if not parent or parent[1] in ("", "/org/a11y/atspi/null") or A11Y.role(parent) == "application":
            break
        node = window = parent
    width = A11Y.extents(window)[2] if window else 0
    return pixels / width if width > 0 else 1


def screenshot(name, plugin=None):
    """grim's picture of the screen; with `plugin`, also NAME.mask.json: the rectangles
    of the cards' labels that show a time of day."""
    path = os.path.join(ENV["ARTIFACTS"], name)
    subprocess.run(["grim", path], check=True)
    if plugin is not None:
        # AT-SPI gives extents in the output's logical units; the picture is in pixels.
        scale = screen_scale(plugin, path)
        masks = []
        for card in plugin.cards():
            def visit(node):
                if A11Y.role(node) == "label" and TIME_TEXT.search(A11Y.name(node) or ""):
                    masks.append([round(v * scale) for v in A11Y.extents(node)])
            A11Y.walk(card, visit)
        with open(path[:-len(".png")] + ".mask.json", "w") as f:
            json.dump({"time_of_day": masks, "scale": scale}, f)
    log(f"screenshot {path}")


# --- the device's own providers -----------------------------------------------------------

CALENDAR = "org.widgetd.calendar/upcoming"
PLAYER = "org.widgetd.media/nowPlaying"
POWER = "org.widgetd.power/battery"
EVENT, PLACE, SONG = "Dentist", "12 Main Street", "Clair de lune"


def playerctl(*arguments):
    return subprocess.run(["playerctl", "--player=mpv", *arguments], capture_output=True, text=True,
                          timeout=30).stdout.strip()


class DeviceSources:
    """evolution-data-server (activated on this session bus), mpv with mpv-mpris, upowerd
    on umockdev (its own process, under umockdev-wrapper), and the three providers."""

    def __init__(self):
        self.processes = []
        self.providers = []
        env = dict(os.environ, PYTHONPATH=f"{PROVIDERS}:{os.path.join(REPOSITORY, 'clients', 'python')}")
        self.battery = subprocess.Popen(["umockdev-wrapper", "/usr/bin/python3", "-m", "tests.sources", "battery"],
                                        cwd=PROVIDERS, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.processes.append(self.battery)
        line = self.battery.stdout.readline().strip()
        if not line.startswith("DBUS_SYSTEM_BUS_ADDRESS="):
            raise Failure(f"upowerd on umockdev did not start ({line!r})")
        system_bus = line.split("=", 1)[1]
        now = int(time.time())
        sources.add_event(EVENT, now + 1800, now + 5400, PLACE)
        track = sources.silence(os.path.join(ENV["ARTIFACTS"], "track.wav"), 240)
        self.processes.append(sources.start_player(SONG, track))
        for name, extra in (("calendar", {}), ("media", {}), ("power", {"DBUS_SYSTEM_BUS_ADDRESS": system_bus})):
            self.providers.append(ProviderProcess(f"widgetd-provider-{name}", ENV["WIDGETD_SOCKET"], ENV["ARTIFACTS"],
                                                  dict(extra, PYTHONPATH=env["PYTHONPATH"])))

    def close(self):
        for provider in self.providers:
            provider.stop()
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def device_providers(daemon, plugin, app):
    """The three providers' cards inside phosh, unlocked, locked, and before the first
    unlock; the README's screenshots."""
    def labels(widget):
        state = plugin.state(widget)
        return state[1] if state else []

    def tree():
        return "\n".join(A11Y.texts(app))

    device = DeviceSources()
    try:
        set_plugin_setting("widgets", f"['{CALENDAR}', '{PLAYER}', '{POWER}']")
        # Unlocked: the event, the player (paused a quarter into its 4-minute track: a
        # picture that does not depend on when it was taken) and the battery at 80 %.
        wait_for("the player playing", lambda: playerctl("status") == "Playing", 60)
        playerctl("pause")
        wait_for("the player paused", lambda: playerctl("status") == "Paused", 30)
        playerctl("position", "60")
        try:
            wait_for("the providers' cards with content", lambda: (
                plugin.mode(CALENDAR) == "content" and EVENT in labels(CALENDAR) and PLACE in labels(CALENDAR)
                and plugin.mode(PLAYER) == "content" and SONG in labels(PLAYER) and "Paused" in labels(PLAYER)
                and plugin.mode(POWER) == "content" and "80 %" in labels(POWER)), 90)
            # (mpv reports the position it seeked to less its output's latency: 59.85 s.)
            def quarter():
                gauges = [A11Y.value(g) for g in plugin.nodes(PLAYER, "level bar")]
                return len(gauges) == 1 and abs(gauges[0][0] - 0.25) < 0.005 and gauges[0][1:] == (0.0, 1.0)
            wait_for("the player's gauge at a quarter", quarter, 30)
        except Failure as failure:
            raise Failure(f"{failure}: {[plugin.state(w) for w in (CALENDAR, PLAYER, POWER)]}") from None
        rings = [A11Y.value(g) for g in plugin.nodes(POWER, "level bar")]
        if rings != [(0.8, 0.0, 1.0)]:
            raise Failure(f"the battery's ring: {rings}")
        toggle = plugin.find(PLAYER, "playPause")
        if toggle is None or A11Y.states(toggle) & (1 << STATE_CHECKED | 1 << STATE_PRESSED):
            raise Failure("the paused player's toggle is missing or shown on")
        show_cards_page(plugin)
        pump(0.5)
        screenshot("phosh-unlocked.png", plugin)
        log("the providers' cards, unlocked: the event with its place, the paused player, the battery at 80 %: ok")

        # Locked, the calendar hidden on the lock screen (hiddenLockScreenWidgets): its
        # title and place are redacted; the player (class none) keeps its title and its
        # toggle, always allowed; the battery its level.
        daemon.ctl("settings", "set", "lock-screen-widgets", "selected", CALENDAR)
        daemon.call("io.widgetd.Device.Lock", {})
        wait_for("the calendar redacted, the others with content", lambda: (
            plugin.mode(CALENDAR) == "redacted" and plugin.mode(PLAYER) == "content"
            and plugin.mode(POWER) == "content"), 30)
        if EVENT in tree() or PLACE in tree():
            raise Failure("the hidden calendar's event is in phosh's tree while locked")
        if SONG not in labels(PLAYER) or "80 %" not in labels(POWER):
            raise Failure(f"locked: {plugin.state(PLAYER)}, {plugin.state(POWER)}")
        pump(0.5)
        screenshot("phosh-locked.png", plugin)
        log("locked, the calendar hidden on the lock screen: its event redacted, the player and the battery shown: ok")

        # Lock-screen widgets off: the player's title goes too; the battery, redacted as
        # well, has nothing sensitive and shows its level still.
        daemon.ctl("settings", "set", "lock-screen-widgets", "off")
        try:
            wait_for("the player and the battery redacted", lambda: plugin.mode(PLAYER) == "redacted"
                     and plugin.mode(POWER) == "redacted" and "80 %" in labels(POWER), 30)
        except Failure as failure:
            raise Failure(f"{failure}: {[plugin.state(w) for w in (CALENDAR, PLAYER, POWER)]}") from None
        if SONG in tree():
            raise Failure("the player's title is in phosh's tree with lock-screen widgets off")
        log("locked, lock-screen widgets off: the player's title redacted, the battery's level shown: ok")

        # widgetd restarts (a reboot: before the first unlock): the providers reconnect and
        # every card shows its placeholder; the first unlock brings their content back.
        daemon.ctl("settings", "set", "lock-screen-widgets", "on")
        daemon.stop()
        daemon.start()
        wait_for("the three placeholders", lambda: all(plugin.mode(w) == "placeholder" for w in (CALENDAR, PLAYER, POWER)), 60)
        if EVENT in tree() or SONG in tree():
            raise Failure("a provider's sensitive value is in phosh's tree before the first unlock")
        daemon.call("io.widgetd.Device.Unlock", {"passcode": PASSCODE})
        wait_for("the providers' content after the restart", lambda: (
            EVENT in labels(CALENDAR) and SONG in labels(PLAYER) and "80 %" in labels(POWER)), 60)
        log("widgetd restarted: the providers' placeholders before the first unlock, their content after it: ok")
        phosh_alive()
    finally:
        device.close()
    for provider in device.providers:
        if provider.process.returncode != 0:
            raise Failure(f"{provider.log_path}: the provider did not exit cleanly on SIGTERM")


# --- the check --------------------------------------------------------------------------

def main():
    # A check that hangs (a D-Bus call phosh never answers) ends with every thread's
    # stack rather than holding CI.
    faulthandler.dump_traceback_later(int(ENV.get("CHECK_DEADLINE", "420")), exit=True)
    global A11Y, TAP
    A11Y = A11y()
    daemon = Daemon()
    results = {}
    try:
        app = wait_for("phosh on the accessibility bus", phosh_application, 90)
        plugin = Plugin(app)
        events = NameEvents()

        # widgetd absent: phosh runs and locks, the plugin shows its empty state.
        wait_for("the empty state", lambda: plugin.empty_text() == "Widgets unavailable")
        pump(2.0)
        phosh_alive()
        log("widgetd absent: phosh runs locked, the plugin shows \"Widgets unavailable\": ok")

        # widgetd started empty: the plugin connects (its retry) and finds nothing. Then a
        # class-A, a class-C and a class-D widget are stored, and a passcode set: the cards
        # come, told by Host.WatchWidgets (well before the 30 s the plugin once re-listed
        # every widget after).
        daemon.start()
        wait_for("the plugin connected to an empty widgetd", lambda: plugin.empty_text() == "No widgets", 60)
        timelines = ENV["WIDGETD_TIMELINES"]
        stored = time.monotonic()
        daemon.ctl("put", HEART, os.path.join(timelines, "heart.json"))
        daemon.ctl("put", FORECAST, os.path.join(timelines, "forecast.json"))
        daemon.ctl("put", MEDIA, os.path.join(timelines, "media.json"))
        daemon.ctl("put", BATTERY, os.path.join(timelines, "battery.json"))
        daemon.ctl("passcode", "set", "--passcode-stdin", stdin=PASSCODE + "\n")
        try:
            wait_for("the four cards with content",
                     lambda: all(plugin.mode(w) == "content" for w in (HEART, FORECAST, MEDIA, BATTERY)), 20)
        except Failure as failure:
            raise Failure(f"{failure}: {[plugin.state(w) for w in (HEART, FORECAST, MEDIA, BATTERY)]}") from None
        log(f"widgetd started: the plugin connects; widgets stored later come with content, "
            f"{time.monotonic() - stored:.1f} s after the first was stored (WatchWidgets): ok")

        # Stopped: every card goes. Started again (before the first unlock): they come back.
        daemon.stop()
        wait_for("no card", lambda: not plugin.cards() and plugin.empty_text() == "Widgets unavailable")
        if secrets_in_tree(app):
            raise Failure(f"a secret stayed in phosh's tree after widgetd stopped: {secrets_in_tree(app)}")
        daemon.start()
        TAP = WatchTap(HEART)
        actions = ActionTap()
        wait_for("both cards with their placeholders",
                 lambda: plugin.mode(HEART) == "placeholder" and plugin.mode(FORECAST) == "placeholder", 60)
        if secrets_in_tree(app):
            raise Failure(f"a secret is in phosh's tree before the first unlock: {secrets_in_tree(app)}")
        heart_labels = plugin.state(HEART)[1]
        if "redacted" not in heart_labels:
            raise Failure(f"the placeholder draws no redaction bar: {heart_labels}")
        log("widgetd stopped and started: the cards go and come back; before the first unlock the class-C card shows its placeholder: ok")

        # Unlocked: both show content.
        unlock = timed(daemon, events, plugin, "io.widgetd.Device.Unlock", {"passcode": PASSCODE}, HEART,
                       card_name(HEART, "content"), "content")
        wait_for("the class-C card with content", lambda: plugin.mode(FORECAST) == "content")
        missing = [w for w, s in SECRETS.items() if s not in plugin.state(w)[1]]
        if missing:
            raise Failure(f"unlocked, yet no content in {missing}")
        log(f"unlock: both cards show content ({unlock * 1000:.1f} ms from the reply to the AT-SPI change): ok")
        # The forecast's reload is overdue, which does not make its content wrong (iOS 17):
        # "out of date" is for invalidated only, and neither card is.
        if "out of date" in plugin.state(FORECAST)[0] or "out of date" in plugin.state(HEART)[0]:
            raise Failure(f"a due reload was drawn out of date: {plugin.state(FORECAST)[0]!r}, {plugin.state(HEART)[0]!r}")

        # Unlocked, an action that needs an unlock runs at once: its provider receives it.
        mark = len(actions.deliveries)
        press_action(plugin, HEART, "open")
        delivery = wait_for("the provider's delivery of open", lambda: actions.delivered(mark, HEART, "open"), 10)
        if delivery.get("whileLocked") is not False:
            raise Failure(f"unlocked, open was delivered as {delivery}")
        # Until the provider answers with a new timeline the card is invalidated, drawn
        # "out of date" (iOS 17's meaning); the provider's answer ends it.
        wait_for("the heart card out of date while its provider answers",
                 lambda: plugin.state(HEART)[0] == card_name(HEART, "content") + ", out of date", 10)
        daemon.ctl("put", HEART, os.path.join(ENV["WIDGETD_TIMELINES"], "heart.json"))
        wait_for("the heart card up to date again", lambda: plugin.state(HEART)[0] == card_name(HEART, "content"), 10)
        log("unlocked: pressing Open (AT-SPI) delivers it to the provider; the card is out of date until "
            "the provider's new timeline: ok")
        show_cards_page(plugin)
        screenshot("phosh-examples-unlocked.png")
        # Roles: no field's name is drawn once a field has a role; the gauge's AtkValue is
        # its value and range; the timer's text is what is drawn, and it ticks by itself while
        # shown (the cards' page is on screen now).
        heart_labels = plugin.state(HEART)[1]
        named = [name for name in ("title", "heartRate", "steps", "symbol") if name in heart_labels]
        if named or "64 bpm" not in heart_labels or "4,210 steps" not in heart_labels:
            raise Failure(f"the heart card, drawn from roles: {heart_labels}")
        gauges = plugin.nodes(MEDIA, "level bar")
        if len(gauges) != 1 or A11Y.value(gauges[0]) != (0.25, 0.0, 1.0):
            raise Failure(f"the media card's gauge: {[A11Y.value(g) for g in gauges]}")
        timer = lambda: [A11Y.text(n) for n in plugin.nodes(MEDIA, "label")  # noqa: E731
                         if len(A11Y.text(n)) == 5 and A11Y.text(n)[2] == ":"]
        rings = plugin.nodes(BATTERY, "level bar")
        if len(rings) != 1 or A11Y.value(rings[0]) != (80.0, 0.0, 100.0) or "80%" not in plugin.state(BATTERY)[1]:
            raise Failure(f"the battery's ring: {[A11Y.value(g) for g in rings]}, {plugin.state(BATTERY)}")
        first = wait_for("the media card's timer", timer)
        ticked = wait_for("the timer ticking", lambda: timer() != first and timer(), 5)
        log(f"roles: no field names, the gauges' AtkValue (bar 0.25 of 0-1, ring 80 of 0-100), the timer ticks ({first[0]} then {ticked[0]}): ok")

        # The card draws its fields in the order the timeline gives them.
        drawn = plugin.drawn_order(FORECAST, FORECAST_ORDER)
        if drawn != FORECAST_ORDER:
            raise Failure(f"the forecast's fields are drawn as {drawn}, not in the timeline's order {FORECAST_ORDER}")
        log("the content card draws its fields in the timeline's order: ok")

        # Locked: class A's placeholder within the deadline, its secret gone; class C stays.
        lock = timed(daemon, events, plugin, "io.widgetd.Device.Lock", {}, HEART, card_name(HEART, "locked, placeholder"),
                     "placeholder")
        if lock > LOCK_ROUND_LIMIT:
            raise Failure(f"the class-A placeholder came {lock * 1000:.1f} ms after the lock reply")
        leaked = secrets_in_tree(app)
        if HEART in leaked:
            raise Failure("the class-A secret is still in phosh's tree after the lock")
        if plugin.mode(FORECAST) != "content" or SECRETS[FORECAST] not in plugin.state(FORECAST)[1]:
            raise Failure(f"the class-C card did not stay: {plugin.state(FORECAST)}")
        log(f"lock: the class-A placeholder {lock * 1000:.1f} ms after the reply, its secret gone from the tree; class C stays: ok")

        # Timings: rounds of unlock and lock.
        unlocks, locks = [unlock], [lock]
        for _ in range(ROUNDS - 1):
            unlocks.append(timed(daemon, events, plugin, "io.widgetd.Device.Unlock", {"passcode": PASSCODE}, HEART,
                                 card_name(HEART, "content"), "content"))
            locks.append(timed(daemon, events, plugin, "io.widgetd.Device.Lock", {}, HEART,
                               card_name(HEART, "locked, placeholder"), "placeholder"))
        for name, values in (("unlock_to_content_ms", unlocks), ("lock_to_placeholder_ms", locks),
                             ("fanout_to_content_ms", BEYOND_FANOUT["content"]),
                             ("fanout_to_placeholder_ms", BEYOND_FANOUT["placeholder"])):
            ms = sorted(v * 1000 for v in values)
            results[name] = {"rounds": len(ms), "median": round(statistics.median(ms), 2),
                             "p90": round(ms[int(0.9 * (len(ms) - 1))], 2),
                             "max": round(ms[-1], 2), "min": round(ms[0], 2), "all": [round(v, 2) for v in ms]}
            log(f"{name}: median {results[name]['median']} ms, p90 {results[name]['p90']} ms, "
                f"max {results[name]['max']} ms over {len(ms)} rounds")
        if statistics.median(locks) > LOCK_DEADLINE or max(locks) > LOCK_ROUND_LIMIT:
            raise Failure(f"locks reached the tree in {results['lock_to_placeholder_ms']['median']} ms (median; limit "
                          f"{LOCK_DEADLINE * 1000:.0f} ms) and {results['lock_to_placeholder_ms']['max']} ms at most "
                          f"(limit {LOCK_ROUND_LIMIT * 1000:.0f} ms)")

        # Locked: an action always allowed is delivered at once (a toggle with its new
        # state, which the button shows); one that needs an unlock is held, the card says
        # it waits, and the unlock delivers it.
        mark = len(actions.deliveries)
        press_action(plugin, MEDIA, "play")
        delivery = wait_for("the provider's delivery of play", lambda: actions.delivered(mark, MEDIA, "play"), 10)
        if delivery.get("whileLocked") is not True or delivery.get("isOn") is not True:
            raise Failure(f"locked, play was delivered as {delivery}")
        wait_for("the play toggle shown on",
                 lambda: A11Y.states(plugin.find(MEDIA, "play")) & (1 << STATE_CHECKED | 1 << STATE_PRESSED), 10)
        # Held, and no unlock within ActionHoldSec= (6 s here): it expires, and says so.
        press_action(plugin, HEART, "open")
        status = lambda: plugin.find(HEART, "widgetd-action-status")  # noqa: E731
        wait_for("the held action's status", lambda: status() and A11Y.text(status()) == "Waiting for unlock", 10)
        held = time.monotonic()
        wait_for("the held action expired", lambda: status() and A11Y.text(status()) == "Expired", 20)
        if actions.delivered(mark, HEART, "open"):
            raise Failure("an expired action was delivered")
        log(f"locked: Open held, \"Waiting for unlock\", then \"Expired\" after {time.monotonic() - held:.1f} s: ok")
        press_action(plugin, HEART, "open")
        wait_for("the held action's status", lambda: status() and A11Y.text(status()) == "Waiting for unlock", 10)
        if actions.delivered(mark, HEART, "open"):
            raise Failure(f"locked, open was delivered before the unlock: {actions.delivered(mark, HEART, 'open')}")
        if A11Y.name(plugin.find(HEART, "open")) != "Open":
            raise Failure(f"the action's accessible name is {A11Y.name(plugin.find(HEART, 'open'))!r}, not its title")
        daemon.call("io.widgetd.Device.Unlock", {"passcode": PASSCODE})
        wait_for("the held open delivered by the unlock", lambda: actions.delivered(mark, HEART, "open"), 10)
        wait_for("the status gone", lambda: plugin.mode(HEART) == "content" and not plugin.find(HEART, "widgetd-action-status"))
        # The providers answer with new timelines (the player now playing).
        daemon.ctl("put", HEART, os.path.join(ENV["WIDGETD_TIMELINES"], "heart.json"))
        with open(os.path.join(ENV["WIDGETD_TIMELINES"], "media.json")) as f:
            playing = f.read().replace('"isOn": false', '"isOn": true')
        daemon.ctl("put", MEDIA, "-", stdin=playing)
        wait_for("both answered", lambda: plugin.state(HEART)[0] == card_name(HEART, "content")
                 and plugin.state(MEDIA)[0] == card_name(MEDIA, "content")
                 and A11Y.states(plugin.find(MEDIA, "play")) & (1 << STATE_CHECKED | 1 << STATE_PRESSED), 10)
        daemon.call("io.widgetd.Device.Lock", {})
        wait_for("the heart placeholder again", lambda: plugin.mode(HEART) == "placeholder")
        log("locked: Play (always allowed) delivered at once, the toggle shown on; Open held, "
            "\"Waiting for unlock\", delivered by the unlock: ok")

        # "Allow access when locked" off: no sensitive value on any card.
        daemon.ctl("settings", "set", "lock-screen-widgets", "off")
        wait_for("the class-C card redacted", lambda: plugin.mode(FORECAST) == "redacted")
        leaked = secrets_in_tree(app)
        if leaked:
            raise Failure(f"with lock-screen widgets off, sensitive values are in phosh's tree: {leaked}")
        if "redacted" not in plugin.state(FORECAST)[1] or "18 °C" not in plugin.state(FORECAST)[1]:
            raise Failure(f"the redacted card should show a bar and its ordinary fields: {plugin.state(FORECAST)}")
        # A sensitive action's title is withheld as a field's value: its button is named
        # "redacted" (and the secret in its title is nowhere in the tree, checked above).
        refresh = plugin.find(FORECAST, "refresh")
        if refresh is None or A11Y.name(refresh) != "redacted":
            raise Failure(f"the sensitive action's button: {A11Y.name(refresh) if refresh else None!r}")
        log("lock-screen widgets off: no card shows a sensitive value, the redacted one draws a bar: ok")
        pump(0.5)
        screenshot("phosh-examples-locked.png")
        daemon.ctl("settings", "set", "lock-screen-widgets", "on")

        # A widgetd that answers badly: the card shows nothing, phosh runs on. (phosh runs
        # with a 4 MiB stack: tests/phosh/start-phosh.)
        for label, reply in (("malformed", b"{\"parameters\": " + b"[" * 1000 + b"]" * 1000 + b"}\0"),
                             ("endless", b"{\"parameters\": \"" + b"x" * (256 * 1024)),
                             ("commented", COMMENTED)):
            path = f"{ENV['FAKE_SOCKET']}.{label}"
            server = fake_widgetd(path, reply)
            set_plugin_setting("socket", f"'{path}'")
            wait_for(f"the {label} card dropped", lambda: plugin.mode(BAD) == "unavailable")
            pump(1.0)
            phosh_alive()
            if plugin.mode(BAD) != "unavailable":
                raise Failure(f"the {label} reply was drawn: {plugin.state(BAD)}")
            server.close()
            log(f"a {label} Watch reply: that card shows nothing, phosh runs on: ok")

        # A listener that floods valid replies: phosh keeps drawing (at most one redraw of
        # the card per frame, replies read below drawing's priority).
        flood = Flood()
        path = f"{ENV['FAKE_SOCKET']}.flood"
        server = fake_widgetd(path, flood)
        set_plugin_setting("socket", f"'{path}'")
        wait_for("the flooded card drawn", lambda: plugin.mode(BAD) == "content")
        show_cards_page(plugin)
        frames = count_frames(3000)
        flood.stopped.set()
        server.close()
        results["flood_frames_per_s"] = round(frames / 3.0, 1)
        log(f"a listener flooding valid Watch replies: phoc composed {frames} changed frames in 3 s")
        if frames < 15:
            raise Failure(f"a flood of Watch replies held phosh's drawing back: {frames} frames in 3 s")
        phosh_alive()

        # A listener that is neither this user (root here) nor root: sent nothing, not even
        # the first call; the plugin shows its empty state and retries.
        directory = tempfile.mkdtemp(prefix="widgetd-foreign-")
        os.chmod(directory, 0o777)
        path = os.path.join(directory, "widgetd.sock")
        listener, lines = foreign_listener(path)
        try:
            set_plugin_setting("socket", f"'{path}'")
            wait_for("two connections to nobody's listener, each closed",
                     lambda: sum(line.startswith("bytes ") for line in lines) >= 2, 30)
            sent = sum(int(line.split()[1]) for line in lines if line.startswith("bytes "))
            if sent != 0:
                raise Failure(f"the plugin sent {sent} bytes to a listener run by nobody")
            if plugin.cards() or plugin.empty_text() != "Widgets unavailable":
                raise Failure(f"a listener run by nobody: {plugin.empty_text()!r}, {len(plugin.cards())} cards")
        finally:
            listener.kill()
            listener.wait()
            shutil.rmtree(directory, ignore_errors=True)
        log("a listener run by another user: sent nothing, the plugin shows \"Widgets unavailable\": ok")
        set_plugin_setting("socket", f"'{ENV['WIDGETD_SOCKET']}'")
        wait_for("the cards back", lambda: plugin.mode(HEART) == "placeholder" and plugin.mode(FORECAST) == "content")
        actions.connection.close()

        # What is shown: the most relevant first, at most max-widgets; or the picked ones, in
        # their order. Unlocked, so that the class-A widget's relevance is known (a
        # placeholder has none); each change of a setting ranks again.
        shown = lambda: [A11Y.accessible_id(card) for card in plugin.cards()]  # noqa: E731
        daemon.call("io.widgetd.Device.Unlock", {"passcode": PASSCODE})
        set_plugin_setting("max-widgets", "1")
        wait_for("only the most relevant card", lambda: shown() == [HEART])
        set_plugin_setting("widgets", f"['{FORECAST}', '{HEART}']")
        wait_for("the first picked card only", lambda: shown() == [FORECAST])
        set_plugin_setting("max-widgets", "3")
        wait_for("the picked cards in their order", lambda: shown() == [FORECAST, HEART])
        set_plugin_setting("widgets", "@as []")
        wait_for("every card again, most relevant first", lambda: shown() == [HEART, FORECAST, MEDIA])
        log("shown: the most relevant first, at most max-widgets; picked widgets in their order: ok")
        phosh_alive()

        device_providers(daemon, plugin, app)
    finally:
        daemon.stop()
        with open(os.path.join(ENV["ARTIFACTS"], "timings.json"), "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    # A TERM ends the check through its cleanup (widgetd stopped).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        sys.exit(main())
    except Failure as failure:
        log(f"FAIL: {failure}")
        sys.exit(1)
