"""widgetd-provider-power: UPower's batteries as org.widgetd.power/battery.

Follows ``org.freedesktop.UPower`` on the system bus: its display device and each
peripheral's ``PropertiesChanged`` (through GDBusProxy, which takes signals only from
the name's current owner), ``DeviceAdded``/``DeviceRemoved``, and the name
appearing or vanishing (upowerd started, restarted, stopped). No polling.
"""

from __future__ import annotations

import datetime as _dt
import sys
from typing import Any, Dict, Optional

from gi.repository import Gio, GLib

from . import power
from .runner import Provider, main as run

BUS_NAME = "org.freedesktop.UPower"
DISPLAY_DEVICE = "/org/freedesktop/UPower/devices/DisplayDevice"
DEVICE_INTERFACE = "org.freedesktop.UPower.Device"


def _value(proxy: Gio.DBusProxy, name: str) -> Any:
    variant = proxy.get_cached_property(name)
    return None if variant is None else variant.unpack()


def _battery(proxy: Gio.DBusProxy) -> power.Battery:
    return power.Battery(
        present=_value(proxy, "IsPresent"),
        percentage=_value(proxy, "Percentage"),
        state=_value(proxy, "State"),
        icon=_value(proxy, "IconName"),
        kind=_value(proxy, "Type"),
        model=_value(proxy, "Model"),
    )


class PowerProvider(Provider):
    name = "widgetd-provider-power"
    provider = power.PROVIDER
    description = "Write UPower's battery (and peripherals' batteries) to widgetd as org.widgetd.power/battery."

    def __init__(self, sink: Any, log: Any) -> None:
        super().__init__(sink, log)
        self.bus: Optional[Gio.DBusConnection] = None
        self.display: Optional[Gio.DBusProxy] = None
        self.peripherals: Dict[str, Gio.DBusProxy] = {}
        self.cancellable = Gio.Cancellable()
        self.watch = 0
        self.subscriptions: list = []

    def start(self) -> None:
        self.update()  # the placeholder until UPower answers
        self.watch = Gio.bus_watch_name(Gio.BusType.SYSTEM, BUS_NAME, Gio.BusNameWatcherFlags.NONE,
                                        self._appeared, self._vanished)

    def stop(self) -> None:
        self.cancellable.cancel()
        if self.watch:
            Gio.bus_unwatch_name(self.watch)

    def _appeared(self, bus: Gio.DBusConnection, name: str, owner: str) -> None:
        self.log.info("UPower appeared (%s)", owner)
        self._drop()
        self.bus = bus
        self.cancellable = Gio.Cancellable()
        Gio.DBusProxy.new(bus, Gio.DBusProxyFlags.NONE, None, BUS_NAME, DISPLAY_DEVICE, DEVICE_INTERFACE,
                          self.cancellable, self._display_ready, None)
        for member in ("DeviceAdded", "DeviceRemoved"):
            self.subscriptions.append(bus.signal_subscribe(
                owner, "org.freedesktop.UPower", member, "/org/freedesktop/UPower", None,
                Gio.DBusSignalFlags.NONE, self._devices_changed))
        bus.call(BUS_NAME, "/org/freedesktop/UPower", "org.freedesktop.UPower", "EnumerateDevices", None,
                 GLib.VariantType.new("(ao)"), Gio.DBusCallFlags.NONE, 5000, self.cancellable, self._enumerated)

    def _vanished(self, bus: Optional[Gio.DBusConnection], name: str) -> None:
        if self.bus is not None:
            self.log.info("UPower vanished")
        self._drop()
        self.update()

    def _drop(self) -> None:
        self.cancellable.cancel()
        if self.bus is not None:
            for subscription in self.subscriptions:
                self.bus.signal_unsubscribe(subscription)
        self.subscriptions = []
        self.bus = None
        self.display = None
        self.peripherals = {}

    def _display_ready(self, source: Any, result: Gio.AsyncResult, data: Any) -> None:
        try:
            proxy = Gio.DBusProxy.new_finish(result)
        except GLib.Error as error:
            if not error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED):
                self.log.warning("UPower's display device: %s", error.message)
            return
        self.display = proxy
        proxy.connect("g-properties-changed", lambda *_: self.update())
        self.update()

    def _enumerated(self, bus: Gio.DBusConnection, result: Gio.AsyncResult) -> None:
        try:
            (paths,) = bus.call_finish(result).unpack()
        except GLib.Error as error:
            if not error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED):
                self.log.warning("UPower's devices: %s", error.message)
            return
        for path in paths:
            self._add(path)

    def _devices_changed(self, bus: Gio.DBusConnection, sender: str, path: str, interface: str,
                         member: str, parameters: GLib.Variant) -> None:
        (device,) = parameters.unpack() if parameters.get_type_string() == "(o)" else (None,)
        if device is None:
            return
        if member == "DeviceAdded":
            self._add(device)
        elif self.peripherals.pop(device, None) is not None:
            self.update()

    def _add(self, path: str) -> None:
        if self.bus is None or path in self.peripherals or path == DISPLAY_DEVICE:
            return

        def ready(source: Any, result: Gio.AsyncResult, data: Any) -> None:
            try:
                proxy = Gio.DBusProxy.new_finish(result)
            except GLib.Error:
                return
            if not power.is_peripheral(_value(proxy, "Type")):
                return
            self.peripherals[path] = proxy
            proxy.connect("g-properties-changed", lambda *_: self.update())
            self.update()

        Gio.DBusProxy.new(self.bus, Gio.DBusProxyFlags.NONE, None, BUS_NAME, path, DEVICE_INTERFACE,
                          self.cancellable, ready, None)

    def update(self) -> None:
        display = _battery(self.display) if self.display is not None else None
        peripherals = [_battery(proxy) for _, proxy in sorted(self.peripherals.items())]
        problems: list = []
        shown = power.fields(display, peripherals, problems)
        self.log.debug("display device: %s", display)
        self.left_out(["UPower " + p for p in problems])
        timeline = power.timeline(display, peripherals, _dt.datetime.now(_dt.timezone.utc))
        self.show(power.WIDGET, timeline, shown)

    def reload(self, widget: str, reason: str) -> None:
        self.forget(widget)
        self.update()


def main() -> int:
    return run(PowerProvider)


if __name__ == "__main__":
    sys.exit(main())
