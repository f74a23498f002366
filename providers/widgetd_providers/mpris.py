"""widgetd-provider-media: the active MPRIS player as org.widgetd.media/nowPlaying.

Follows every ``org.mpris.MediaPlayer2.*`` name on the session bus (``NameOwnerChanged``
from the bus itself: a player starting, restarting or quitting), each player's
``PropertiesChanged`` and ``Seeked`` (through GDBusProxy, which takes signals only from
the name's current owner), and reads ``Position`` once per change, since MPRIS does not
signal it. No polling. Actions performed on the widget are sent to the player:
``playPause`` (a toggle: ``Play`` or ``Pause`` as its new ``isOn`` says), ``next``, ``previous``.
"""

from __future__ import annotations

import datetime as _dt
import itertools
import sys
import time
from typing import Any, Dict, Optional

from gi.repository import Gio, GLib

from . import media
from .runner import Provider, main as run

PREFIX = "org.mpris.MediaPlayer2."
PATH = "/org/mpris/MediaPlayer2"
PLAYER = "org.mpris.MediaPlayer2.Player"

_ticks = itertools.count(1)


class _Player:
    """One player: its proxy, the last status change's tick, the position as read."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.proxy: Optional[Gio.DBusProxy] = None
        self.changed = next(_ticks)
        self.position: Any = None
        self.cancellable = Gio.Cancellable()

    def value(self, name: str) -> Any:
        if self.proxy is None:
            return None
        variant = self.proxy.get_cached_property(name)
        return None if variant is None else variant.unpack()

    def state(self) -> media.Player:
        return media.Player(
            status=self.value("PlaybackStatus"), metadata=self.value("Metadata"), position=self.position,
            rate=self.value("Rate") if self.value("Rate") is not None else 1.0,
            can_next=self.value("CanGoNext"), can_previous=self.value("CanGoPrevious"),
            can_control=self.value("CanControl"),
        )


class MediaProvider(Provider):
    name = "widgetd-provider-media"
    provider = media.PROVIDER
    description = "Write the active MPRIS player's state to widgetd as org.widgetd.media/nowPlaying."
    has_actions = True

    def __init__(self, sink: Any, log: Any) -> None:
        super().__init__(sink, log)
        self.bus: Optional[Gio.DBusConnection] = None
        self.players: Dict[str, _Player] = {}
        self.subscription = 0
        # What the last timeline showed: the player, its state, and when it was read
        # (monotonic seconds).
        self._last: Optional[tuple] = None

    def start(self) -> None:
        self.update()
        try:
            self.bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        except GLib.Error as error:
            self.log.error("no session bus: %s", error.message)
            return
        self.subscription = self.bus.signal_subscribe(
            "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus", None,
            Gio.DBusSignalFlags.NONE, self._owner_changed)
        self.bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames", None,
                      GLib.VariantType.new("(as)"), Gio.DBusCallFlags.NONE, 5000, None, self._listed)

    def stop(self) -> None:
        for player in self.players.values():
            player.cancellable.cancel()
        if self.bus is not None and self.subscription:
            self.bus.signal_unsubscribe(self.subscription)

    # --- Players coming and going ------------------------------------------------

    def _listed(self, bus: Gio.DBusConnection, result: Gio.AsyncResult) -> None:
        try:
            (names,) = bus.call_finish(result).unpack()
        except GLib.Error as error:
            self.log.error("ListNames: %s", error.message)
            return
        for name in names:
            if name.startswith(PREFIX):
                self._add(name)

    def _owner_changed(self, bus: Gio.DBusConnection, sender: str, path: str, interface: str, member: str,
                       parameters: GLib.Variant) -> None:
        if parameters.get_type_string() != "(sss)":
            return
        name, old, new = parameters.unpack()
        if not name.startswith(PREFIX):
            return
        if old:
            self._remove(name)
        if new:
            self._add(name)

    def _add(self, name: str) -> None:
        if name in self.players or self.bus is None:
            return
        player = _Player(name)
        self.players[name] = player
        self.log.info("player appeared: %s", name)

        def ready(source: Any, result: Gio.AsyncResult, data: Any) -> None:
            try:
                proxy = Gio.DBusProxy.new_finish(result)
            except GLib.Error as error:
                if not error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED):
                    self.log.warning("player %s: %s", name, error.message)
                return
            player.proxy = proxy
            proxy.connect("g-properties-changed", lambda proxy, changed, invalidated: self._changed(player, changed))
            proxy.connect("g-signal", lambda proxy, sender, signal, parameters: self._signal(player, signal))
            self._read_position(player)

        Gio.DBusProxy.new(self.bus, Gio.DBusProxyFlags.GET_INVALIDATED_PROPERTIES, None, name, PATH, PLAYER,
                          player.cancellable, ready, None)

    def _remove(self, name: str) -> None:
        player = self.players.pop(name, None)
        if player is not None:
            player.cancellable.cancel()
            self.log.info("player vanished: %s", name)
            self.update()

    # --- A player's changes ------------------------------------------------------

    def _changed(self, player: _Player, changed: GLib.Variant) -> None:
        keys = changed.keys() if hasattr(changed, "keys") else []
        if "PlaybackStatus" in keys:
            player.changed = next(_ticks)
        self._read_position(player)

    def _signal(self, player: _Player, signal: str) -> None:
        if signal == "Seeked":
            self._read_position(player)

    def _read_position(self, player: _Player) -> None:
        """Reads Position (MPRIS does not signal it), then shows the new state."""
        if self.bus is None:
            return

        def done(bus: Gio.DBusConnection, result: Gio.AsyncResult) -> None:
            try:
                (value,) = bus.call_finish(result).unpack()
                player.position = value
            except GLib.Error as error:
                if error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED):
                    return
                player.position = None
            except (TypeError, ValueError):
                player.position = None
            self.update()

        self.bus.call(player.name, PATH, "org.freedesktop.DBus.Properties", "Get",
                      GLib.Variant("(ss)", (PLAYER, "Position")), GLib.VariantType.new("(v)"),
                      Gio.DBusCallFlags.NONE, 2000, player.cancellable, done)

    def active(self) -> Optional[_Player]:
        ready = {name: (str(p.value("PlaybackStatus")), p.changed) for name, p in self.players.items() if p.proxy}
        chosen = media.choose(ready)
        return self.players.get(chosen) if chosen else None

    def update(self) -> None:
        player = self.active()
        state = None
        if player is not None:
            problems: list = []
            state = media.shown(player.state(), problems)
            self.left_out(["MPRIS " + p for p in problems])
        now = time.monotonic()
        name = player.name if player else None
        if media.foreseen(self._last, name, state, now):
            return
        self._last = (name, state, now)
        timeline = media.timeline(state, _dt.datetime.now(_dt.timezone.utc))
        self.show(media.WIDGET, timeline, (player.name if player else None, state))

    # --- widgetd's requests ------------------------------------------------------

    def reload(self, widget: str, reason: str) -> None:
        self.forget(widget)
        self._last = None
        self.update()

    def perform(self, event: Dict[str, Any]) -> None:
        action = event.get("action")
        method = {"next": "Next", "previous": "Previous"}.get(action)
        if action == "playPause":
            method = "Play" if event.get("isOn") is True else "Pause" if event.get("isOn") is False else "PlayPause"
        player = self.active()
        if method is None or player is None or self.bus is None:
            self.log.warning("action %s: nothing to do it on", action if method else "(unknown)")
            self.forget(media.WIDGET)
            self._last = None
            self.update()
            return
        self.log.info("action %s%s: %s", action, " (while locked)" if event.get("whileLocked") else "", method)

        def done(bus: Gio.DBusConnection, result: Gio.AsyncResult) -> None:
            try:
                bus.call_finish(result)
            except GLib.Error as error:
                self.log.warning("%s on %s: %s", method, player.name, error.message)
            # widgetd waits for a new timeline after an action: write one even when
            # the player's state did not change (its signals write the rest).
            self.forget(media.WIDGET)
            self._last = None
            self.update()

        self.bus.call(player.name, PATH, PLAYER, method, None, None, Gio.DBusCallFlags.NONE, 2000, None, done)


def main() -> int:
    return run(MediaProvider)


if __name__ == "__main__":
    sys.exit(main())
