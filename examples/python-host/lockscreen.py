#!/usr/bin/env python3
"""A lock screen in a terminal: what it would show of each widget, followed live.

    lockscreen.py [--socket PATH] [--surface lockScreen] [--once] [WIDGET ...]

Without WIDGET, every stored widget. Each time a widget's presentation changes
(a new entry, a lock, an unlock, a settings change), its block is printed again;
the device's lock state is printed as it changes. Redacted fields are drawn as
bars: the host never receives the real value, so it has none to show.

An entry whose fields have layout roles is drawn from them, as a template host
draws it: the title, the value, a gauge as a bar, dates in their style (local
time; worked out when printed, not ticking), the details, then the actions as
buttons, "Unlock to …" for one that waits for an unlock. Fields without a role
are data for custom hosts and are not drawn. An entry with no role is drawn as
names and values, in the provider's order.
``--once`` prints the current state and exits. Ctrl-C or SIGTERM end it.

Needs the ``widgetd`` package (``pip install ./clients/python``, or
``PYTHONPATH=clients/python``).
"""

import argparse
import asyncio
import datetime
import json
import signal
import sys
from typing import Any, Dict, List, Optional

import widgetd
import widgetd.aio

BARS = "••••"


def render(presentation: Dict[str, Any]) -> str:
    """A widget's block, as a lock screen would draw it."""
    header = "%s · %s · %s" % (presentation["widget"], presentation["surface"], presentation["mode"])
    if presentation.get("stale"):
        header += " · stale"
    fields = presentation["entry"]["fields"]
    if any("role" in field for field in fields.values()):
        lines = [header] + render_roles(fields)
    else:
        lines = [header] + render_names(fields)
    lines += ["  " + render_action(action) for action in presentation.get("actions", [])]
    return "\n".join(lines) + "\n"


def render_names(fields: Dict[str, Any]) -> List[str]:
    """Names and values, in the provider's order (JSON objects keep their order)."""
    if not fields:
        return ["  (nothing to show)"]
    width = max(len(name) for name in fields)
    return ["  %s  %s" % (name.ljust(width), text(field)) for name, field in fields.items()]


def render_roles(fields: Dict[str, Any]) -> List[str]:
    """The layout of DESIGN §12: title (with its icon), value, gauge, dates, details."""
    by_role: Dict[str, List[Dict[str, Any]]] = {}
    for field in fields.values():
        by_role.setdefault(field.get("role", ""), []).append(field)
    first = lambda role: by_role.get(role, [None])[0]  # noqa: E731
    lines = []
    title, icon = first("title"), first("icon")
    heading = " ".join(part for part in (
        "[%s]" % text(icon) if icon else "", text(title) if title else "") if part)
    if heading:
        lines.append("  " + heading)
    if first("value"):
        lines.append("  " + text(first("value")).upper())
    for gauge in by_role.get("gauge", []):
        lines.append("  " + bar(gauge))
    for date in by_role.get("date", []):
        lines.append("  " + (BARS if date.get("redacted") else styled_date(date)))
    lines += ["  " + text(detail) for detail in by_role.get("detail", [])]
    return lines


def text(field: Dict[str, Any]) -> str:
    if field.get("redacted"):
        return BARS
    value = field.get("value")
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def bar(gauge: Dict[str, Any], width: int = 10) -> str:
    """A gauge as a bar within its range; a redacted one is empty."""
    low, high = gauge.get("range", [0, 1])
    value = gauge.get("value")
    if gauge.get("redacted") or not isinstance(value, (int, float)):
        return "[%s]" % (" " * width)
    share = min(max((value - low) / (high - low), 0.0), 1.0)
    filled = round(share * width)
    return "[%s%s] %d%%" % ("█" * filled, "-" * (width - filled), round(share * 100))


def styled_date(field: Dict[str, Any], now: Optional[datetime.datetime] = None) -> str:
    """A date field in its style, in local time: time, date, relative or timer."""
    when = datetime.datetime.fromisoformat(str(field["value"]).replace("Z", "+00:00")).astimezone()
    now = now or datetime.datetime.now().astimezone()
    style = field.get("style", "time")
    if style == "date":
        return when.strftime("%Y-%m-%d")
    seconds = int((when - now).total_seconds())
    if style == "timer":
        left = abs(seconds)
        return "%s%02d:%02d" % ("-" if seconds < 0 else "", left // 60, left % 60)
    if style == "relative":
        minutes = round(abs(seconds) / 60)
        if minutes == 0:
            return "now"
        return ("in %d min" if seconds > 0 else "%d min ago") % minutes
    return when.strftime("%H:%M")


def render_action(action: Dict[str, Any]) -> str:
    """A button or a toggle; one that waits for an unlock says so."""
    title = BARS if action.get("title") is None else action["title"]
    if action.get("kind") == "toggle":
        title = ("● " if action.get("isOn") else "○ ") + title
    if not action.get("available") and action.get("requires") == "unlock":
        return "[ Unlock to %s ]" % title
    return "[ %s ]" % title


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
