"""An MPRIS player that lies about its types, as a buggy or hostile program on the
session bus may: ``hostile_player.py NAME`` owns ``org.mpris.MediaPlayer2.NAME`` and says
it is playing a track whose title is a number, whose artists are a dictionary, whose
length is text and whose position is a list (every property is declared ``v``, so
GDBus sends whatever is returned). It prints ``ready`` once it owns the name."""

import sys

from gi.repository import Gio, GLib

XML = """<node><interface name="org.mpris.MediaPlayer2.Player">
<property name="PlaybackStatus" type="v" access="read"/><property name="Metadata" type="v" access="read"/>
<property name="Position" type="v" access="read"/><property name="Rate" type="v" access="read"/>
<property name="CanGoNext" type="v" access="read"/><property name="CanGoPrevious" type="v" access="read"/>
<property name="CanControl" type="v" access="read"/>
<method name="Play"/><method name="Pause"/><method name="PlayPause"/><method name="Next"/><method name="Previous"/>
</interface></node>"""

VALUES = {
    "PlaybackStatus": GLib.Variant("s", "Playing"),
    "Metadata": GLib.Variant("a{sv}", {"xesam:title": GLib.Variant("i", 42),
                                       "xesam:artist": GLib.Variant("a{ss}", {"a": "b"}),
                                       "mpris:length": GLib.Variant("s", "forever")}),
    "Position": GLib.Variant("as", ["not", "a", "number"]),
    "Rate": GLib.Variant("s", "fast"),
    "CanGoNext": GLib.Variant("s", "yes"),
    "CanGoPrevious": GLib.Variant("i", 1),
    "CanControl": GLib.Variant("b", True),
}


def get_property(connection, sender, path, interface, name):
    return GLib.Variant("v", VALUES[name])


def call(connection, sender, path, interface, method, parameters, invocation):
    invocation.return_value(None)


bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
info = Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0]
bus.register_object("/org/mpris/MediaPlayer2", info, call, get_property, None)
loop = GLib.MainLoop()


def acquired(*args):
    print("ready", flush=True)


Gio.bus_own_name_on_connection(bus, "org.mpris.MediaPlayer2." + sys.argv[1], Gio.BusNameOwnerFlags.NONE,
                               acquired, lambda *a: loop.quit())
loop.run()
