#!/usr/bin/python3
"""A stand-in for GDM on the test's private system bus (scripts/test-gnome).

GNOME Shell's LoginManager.canLock() reads org.gnome.DisplayManager.Manager's Version
property: without GDM the shell refuses to lock. This answers that property, nothing
else."""

from gi.repository import Gio, GLib

XML = """<node><interface name="org.gnome.DisplayManager.Manager">
<property name="Version" type="s" access="read"/></interface></node>"""


def main():
    bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
    info = Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0]
    bus.register_object("/org/gnome/DisplayManager/Manager", info, None,
                        lambda *args: GLib.Variant("s", "43.0"), None)
    loop = GLib.MainLoop()
    Gio.bus_own_name_on_connection(bus, "org.gnome.DisplayManager", Gio.BusNameOwnerFlags.NONE,
                                   None, lambda *args: loop.quit())
    loop.run()


if __name__ == "__main__":
    main()
