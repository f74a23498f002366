"""What the lock-screen hosts' checks share (tests/phosh, tests/gnome, tests/plasma):
the main loop's pump and waits, the accessibility bus spoken to directly, and the
widgetd they start and call. Each host's check keeps only what is its own (how its
host is found, how a card reads, host quirks as overrides of `A11y`), so that the
three hosts are checked by the same means and their figures compare.

The accessibility bus is spoken to with GDBus, not libatspi: libatspi dispatches
incoming events inside its blocking calls, and a cache update it makes there (while a
host starts and announces its objects) can deadlock its own D-Bus connection. Here
every call has a timeout and events arrive only on the main loop. A node is
(bus name, object path).
"""

import json
import os
import signal
import socket
import subprocess
import threading
import time

from gi.repository import Gio, GLib

ENV = os.environ
ACCESSIBLE = "org.a11y.atspi.Accessible"
STATE_CHECKED = 4
STATE_SHOWING = 25


class Failure(Exception):
    pass


def logger(name):
    """`log(message)` printing `name: message` at once (a harness reads it as it comes)."""
    return lambda message: print(f"{name}: {message}", flush=True)


def pump(seconds):
    """Runs the main loop for `seconds`, dispatching each AT-SPI event as it arrives
    (a blocking iteration: no polling delay is added to the measured times)."""
    context = GLib.MainContext.default()
    done = []
    GLib.timeout_add(max(1, int(seconds * 1000)), lambda: done.append(True) and False)
    while not done:
        context.iteration(True)


def wait_for(what, predicate, timeout=30.0):
    """Waits until `predicate()` is true (its value is returned), on a generous deadline,
    pumping the loop 50 ms between tries: a timed check waits on events, not on this."""
    end = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < end:
        try:
            value = predicate()
            if value:
                return value
        except GLib.Error as error:  # an object destroyed while read, a slow answer: read again
            last_error = error
        pump(0.05)
    raise Failure(f"timed out after {timeout:.0f} s waiting for {what}" + (f" ({last_error})" if last_error else ""))


class A11y:
    """The accessibility bus, read as a screen reader reads it."""

    def __init__(self):
        session = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        address = session.call_sync("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress", None,
                                    GLib.VariantType("(s)"), Gio.DBusCallFlags.NONE, 10000, None).unpack()[0]
        self.bus = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)

    def call(self, node, interface, method, arguments=None):
        return self.bus.call_sync(node[0], node[1], interface, method, arguments, None, Gio.DBusCallFlags.NONE,
                                  5000, None).unpack()

    def property(self, node, name, interface=ACCESSIBLE):
        return self.call(node, "org.freedesktop.DBus.Properties", "Get", GLib.Variant("(ss)", (interface, name)))[0]

    def children(self, node):
        return [tuple(child) for child in self.call(node, ACCESSIBLE, "GetChildren")[0]]

    def parent(self, node):
        return tuple(self.property(node, "Parent"))

    def name(self, node):
        return self.property(node, "Name")

    def description(self, node):
        return self.property(node, "Description")

    def accessible_id(self, node):
        return self.property(node, "AccessibleId")

    def role(self, node):
        return self.call(node, ACCESSIBLE, "GetRoleName")[0]

    def states(self, node):
        low, high = self.call(node, ACCESSIBLE, "GetState")[0]
        return low | high << 32

    def checked(self, node):
        return bool(self.states(node) & (1 << STATE_CHECKED))

    def showing(self, node):
        return bool(self.states(node) & (1 << STATE_SHOWING))

    def extents(self, node):
        """(x, y, width, height) on the screen, in the output's logical units."""
        return self.call(node, "org.a11y.atspi.Component", "GetExtents", GLib.Variant("(u)", (0,)))[0]

    def text(self, node):
        return self.call(node, "org.a11y.atspi.Text", "GetText", GLib.Variant("(ii)", (0, -1)))[0]

    def value(self, node):
        """(current, minimum, maximum) of AtkValue."""
        get = lambda name: self.property(node, name, "org.a11y.atspi.Value")  # noqa: E731
        return get("CurrentValue"), get("MinimumValue"), get("MaximumValue")

    def press(self, node):
        """Does the node's first action (a button's click), as a screen reader would."""
        return self.call(node, "org.a11y.atspi.Action", "DoAction", GLib.Variant("(i)", (0,)))[0]

    def register(self, event, callback):
        """Asks the applications for `event`, an `object:property-change:KIND` (they send
        only what someone listens to), and calls `callback(time, path, value)` as each
        arrives, timed when it arrives."""
        kind = event.rsplit(":", 1)[1]

        def on_signal(connection, sender, path, interface_name, signal_name, parameters):
            changed, _, _, value, *_ = parameters.unpack()
            if changed == kind:
                callback(time.monotonic(), path, value if isinstance(value, str) else "")

        self.bus.signal_subscribe(None, "org.a11y.atspi.Event.Object", "PropertyChange", None, None,
                                  Gio.DBusSignalFlags.NONE, on_signal)
        self.call(("org.a11y.atspi.Registry", "/org/a11y/atspi/registry"), "org.a11y.atspi.Registry", "RegisterEvent",
                  GLib.Variant("(sass)", (event, [], "")))

    def walk(self, node, visit, depth=0):
        """Visits the subtree; `visit` returning False skips a node's children. A node
        that cannot be read fails the walk: a check that a secret is gone must not pass
        over what it could not read."""
        if depth > 64:
            return
        if visit(node) is False:
            return
        for child in self.children(node):
            self.walk(child, visit, depth + 1)

    def find_first(self, root, matches):
        """The first node of the subtree, in tree order, for which `matches(node)`."""
        found = []

        def visit(node):
            if found:
                return False
            if matches(node):
                found.append(node)
                return False
            return True

        self.walk(root, visit)
        return found[0] if found else None

    def find_id(self, root, accessible_id):
        return self.find_first(root, lambda node: self.accessible_id(node) == accessible_id)

    def find(self, root, name):
        return self.find_first(root, lambda node: self.name(node) == name)

    def texts(self, root):
        """Every name and label text in the subtree, in tree order."""
        out = []

        def visit(node):
            out.append(self.name(node))
            if self.role(node) == "label":
                out.append(self.text(node))

        self.walk(root, visit)
        return out


class Daemon:
    """The widgetd a check starts (ENV: WIDGETD_BIN, WIDGETD_CONFIG, WIDGETD_STATE,
    WIDGETD_SOCKET, WIDGETCTL, ARTIFACTS for its log; WIDGETD_PID_FILE, if set, holds
    its pid, for the harness to stop should the check be killed before its cleanup)."""

    def __init__(self):
        self.process = None

    def start(self):
        self.log = open(os.path.join(ENV["ARTIFACTS"], "widgetd.log"), "a")
        self.process = subprocess.Popen(
            [ENV["WIDGETD_BIN"], "--config", ENV["WIDGETD_CONFIG"], "--state-directory", ENV["WIDGETD_STATE"],
             "--socket", ENV["WIDGETD_SOCKET"]], stdout=self.log, stderr=subprocess.STDOUT)
        if ENV.get("WIDGETD_PID_FILE"):
            with open(ENV["WIDGETD_PID_FILE"], "w") as f:
                f.write(str(self.process.pid))
        wait_for("widgetd's socket", lambda: self.ctl("status", check=False).returncode == 0, 60)

    def stop(self):
        if self.process is not None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=30)
            self.process = None
            self.log.close()

    def ctl(self, *arguments, stdin=None, check=True):
        result = subprocess.run([ENV["WIDGETCTL"], "--socket", ENV["WIDGETD_SOCKET"], *arguments], input=stdin,
                                capture_output=True, text=True, timeout=60)
        if check and result.returncode != 0:
            raise Failure(f"widgetctl {' '.join(arguments)}: {result.returncode} {result.stderr.strip()}")
        return result

    def call(self, method, parameters=None, then=None):
        """Calls widgetd while the main loop keeps dispatching AT-SPI events; returns
        (the monotonic time the reply arrived, the reply, what `then()` gave). The reply
        is read on a thread of its own, so that its time is taken as it arrives, not
        when the loop gets to it; the loop waits for the reply and for `then()` (if
        given) without a call to the host, which would hold events back."""
        result = {}

        def run():
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
                connection.connect(ENV["WIDGETD_SOCKET"])
                connection.sendall(json.dumps({"method": method, "parameters": parameters or {}}).encode() + b"\0")
                received = bytearray()
                while b"\0" not in received:
                    chunk = connection.recv(65536)
                    if not chunk:
                        result["reply"] = None
                        return
                    received.extend(chunk)
                result["time"] = time.monotonic()
                result["reply"] = json.loads(received[:received.index(b"\0")])

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        wait_for(f"the reply to {method}", lambda: "reply" in result, 30)
        if result["reply"] is None or "error" in result["reply"]:
            raise Failure(f"{method}: {result['reply']}")
        after = wait_for(f"what follows {method}", then, 30) if then is not None else None
        return result["time"], result["reply"], after
