"""What the three providers share: the command line, logging, the loop, the sink.

Each provider is a :class:`Provider`: it follows its source and calls
:meth:`Provider.show` with the timeline it built (a pure function of what the
source said) and a ``key`` standing for what it shows: a key equal to the last
one is not written again, so a signal that changes nothing costs nothing.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence

from gi.repository import GLib

from widgetd import _protocol as wire
from widgetd import resolve_socket

from .link import Link


class PrintSink:
    """``--print``: each timeline as one JSON line on standard output, not written
    to widgetd (to see what a provider makes of its source)."""

    def __init__(self) -> None:
        self.on_reload: Optional[Callable[[str, str], None]] = None
        self.on_action: Optional[Callable[[Dict[str, Any]], None]] = None

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def publish(self, widget: str, timeline: Dict[str, Any]) -> None:
        line = json.dumps({"widget": widget, "timeline": timeline}, default=wire.rfc3339, separators=(",", ":"))
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


class Provider:
    """One provider's run: a sink (widgetd, or standard output) and its source.

    Subclasses set ``name`` (the executable), ``provider``, ``description``, and
    implement :meth:`start` (begin following the source) and, if they have
    actions, :meth:`perform`.
    """

    name = ""
    provider = ""
    description = ""
    has_actions = False

    def __init__(self, sink: Any, log: logging.Logger) -> None:
        self.sink = sink
        self.log = log
        self._keys: Dict[str, Any] = {}
        self._logged: set = set()

    def show(self, widget: str, timeline: Dict[str, Any], key: Any) -> None:
        """Writes ``timeline`` unless ``key`` is the one last shown."""
        if widget in self._keys and self._keys[widget] == key:
            return
        self._keys[widget] = key
        self.sink.publish(widget, timeline)

    def forget(self, widget: str) -> None:
        """The next :meth:`show` writes whatever its key (after a reload request)."""
        self._keys.pop(widget, None)

    def left_out(self, what: Sequence[str]) -> None:
        """Logs once per kind of value that the source gave and could not be shown.
        Names the field, never its value."""
        for item in what:
            if item not in self._logged:
                self._logged.add(item)
                self.log.warning("left out a value the source gave: %s (logged once)", item)

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        pass

    def reload(self, widget: str, reason: str) -> None:
        """widgetd asks for the widget's timeline again."""

    def perform(self, event: Dict[str, Any]) -> None:
        """A host performed one of the widget's actions."""


def main(cls: type, argv: Optional[List[str]] = None) -> int:
    """Runs the provider ``cls`` until SIGTERM or SIGINT; its exit status."""
    parser = argparse.ArgumentParser(
        prog=cls.name,
        description=cls.description,
        epilog="The socket, unless given: WIDGETD_SOCKET, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock "
               "(/run/widgetd/widgetd.sock as root), as widgetctl finds it. See widgetd-providers(8).",
    )
    parser.add_argument("--socket", metavar="PATH", help="widgetd's socket")
    parser.add_argument("--print", action="store_true", dest="print_only",
                        help="print each timeline as a JSON line instead of writing it to widgetd")
    parser.add_argument("--verbose", action="store_true", help="log at debug level")
    arguments = parser.parse_args(argv)

    logging.basicConfig(level=logging.DEBUG if arguments.verbose else logging.INFO,
                        format="%(name)s: %(message)s", stream=sys.stderr)
    log = logging.getLogger(cls.name)
    loop = GLib.MainLoop()
    sink: Any
    if arguments.print_only:
        sink = PrintSink()
    else:
        sink = Link(resolve_socket(arguments.socket), cls.provider, log)
    provider = cls(sink, log)
    sink.on_reload = provider.reload
    if cls.has_actions:
        sink.on_action = provider.perform

    def quit_loop() -> bool:
        loop.quit()
        return False

    for number in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_HIGH, number, quit_loop)
    provider.start()
    sink.start()
    loop.run()
    provider.stop()
    sink.stop()
    return 0
