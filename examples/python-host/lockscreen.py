#!/usr/bin/env python3
"""A lock screen in a terminal: what it would show of each widget, followed live.

    lockscreen.py [--socket PATH] [--surface lockScreen] [--once] [WIDGET ...]

Without WIDGET, every stored widget. Each time a widget's presentation changes
(a new entry, a lock, an unlock, a settings change), its block is printed again;
the device's lock state is printed as it changes. Redacted fields are drawn as
bars: the host never receives the real value, so it has none to show.
``--once`` prints the current state and exits. Ctrl-C or SIGTERM end it.

Needs the ``widgetd`` package (``pip install ./clients/python``, or
``PYTHONPATH=clients/python``).
"""

import argparse
import asyncio
import json
import signal
import sys
from typing import Any, Dict, List

import widgetd
import widgetd.aio

BARS = "••••"


def render(presentation: Dict[str, Any]) -> str:
    """A widget's block, as a lock screen would draw it."""
    header = "%s · %s · %s" % (presentation["widget"], presentation["surface"], presentation["mode"])
    if presentation.get("stale"):
        header += " · stale"
    lines = [header]
    fields = presentation["entry"]["fields"]
    width = max((len(name) for name in fields), default=0)
    # In the provider's order, as every host draws them (JSON objects keep their order).
    for name in fields:
        field = fields[name]
        if field.get("redacted"):
            shown = BARS
        else:
            value = field.get("value")
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append("  %s  %s" % (name.ljust(width), shown))
    if not fields:
        lines.append("  (nothing to show)")
    return "\n".join(lines) + "\n"


def show(text: str) -> None:
    """Prints a block at once (a pipe reader sees whole blocks)."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


async def follow_widget(client: widgetd.aio.Client, widget: str, surface: str) -> None:
    try:
        async with client.watch(widget, surface) as stream:
            async for presentation in stream:
                show(render(presentation))
    except widgetd.UnavailableOnSurface:
        show("%s · %s · never shown here\n" % (widget, surface))


async def follow_device(client: widgetd.aio.Client) -> None:
    async with client.monitor() as events:
        async for event in events:
            if event["kind"] == "state":
                show("device: %s" % event["state"])


async def main(arguments: List[str]) -> int:
    parser = argparse.ArgumentParser(description="A lock screen in a terminal.")
    parser.add_argument("--socket", help="widgetd's socket (default: $WIDGETD_SOCKET, then widgetctl's defaults)")
    parser.add_argument("--surface", default="lockScreen", help="lockScreen (default), alwaysOn, homeScreen, remote")
    parser.add_argument("--once", action="store_true", help="print the current state and exit")
    parser.add_argument("widgets", nargs="*", metavar="WIDGET")
    options = parser.parse_args(arguments)

    async with widgetd.aio.Client(options.socket) as client:
        widgets = options.widgets or [w["widget"] for w in await client.list_widgets()]
        if options.once:
            show("device: %s" % (await client.status())["state"])
            for widget in widgets:
                try:
                    show(render(await client.get_presentation(widget, options.surface)))
                except widgetd.UnavailableOnSurface:
                    show("%s · %s · never shown here\n" % (widget, options.surface))
            return 0
        follows = [follow_device(client)] + [follow_widget(client, w, options.surface) for w in widgets]
        tasks = [asyncio.ensure_future(f) for f in follows]
        loop = asyncio.get_running_loop()
        for number in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(number, lambda: [t.cancel() for t in tasks])
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            for task in tasks:
                task.cancel()
        for task in done:
            if not task.cancelled() and task.exception() is not None:
                print("lockscreen: %s" % task.exception(), file=sys.stderr)
                return 1
        return 0


if __name__ == "__main__":
    try:
        sys.exit(asyncio.run(main(sys.argv[1:])))
    except widgetd.Error as error:
        print("lockscreen: %s" % error, file=sys.stderr)
        sys.exit(1)
