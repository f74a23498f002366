"""The battery widget's timeline, from UPower's devices: pure, no I/O.

``org.widgetd.power/battery`` shows UPower's display device (the battery a panel
shows) as a gauge with its icon and charging state, and each peripheral with a
battery (headphones, a stylus, a mouse) as a detail. Nothing here is secret:
every field is ``public``. A battery without a usable percentage shows its state
alone; a device whose values are the wrong type is shown without them.
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import Any, Dict, List, NamedTuple, Optional, Sequence

from .text import clean, clean_icon

PROVIDER = "org.widgetd.power"
WIDGET = PROVIDER + "/battery"
FAMILY = "accessoryCircular"

# UPower's Device.State values.
_STATES = {
    1: "charging",
    2: "discharging",
    3: "empty",
    4: "full",
    5: "not charging",
    6: "discharging",  # pending discharge
}

# UPower's Device.Type values of peripherals worth a line (not line power, not the laptop battery).
_PERIPHERAL_TYPES = {
    5: "mouse", 6: "keyboard", 7: "PDA", 8: "phone", 9: "media player", 10: "tablet",
    11: "computer", 12: "gaming input", 13: "pen", 14: "touchpad", 15: "modem",
    16: "network", 17: "headset", 18: "speakers", 19: "headphones", 20: "video",
    21: "audio", 22: "remote control", 23: "printer", 24: "scanner", 25: "camera",
    26: "wearable", 27: "toy", 28: "Bluetooth",
}


class Battery(NamedTuple):
    """What UPower says about one device, as read (values may be of any type)."""

    present: Any
    percentage: Any
    state: Any
    icon: Any
    kind: Any = 2
    model: Any = None


def _percentage(value: Any) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value) or value < 0 or value > 100:
        return None
    return float(value)


def placeholder() -> Dict[str, Any]:
    return {"fields": {
        "title": {"value": "Battery", "privacy": "public", "role": "title"},
        "icon": {"value": "battery-missing-symbolic", "privacy": "public", "role": "icon"},
    }}


def fields(display: Optional[Battery], peripherals: Sequence[Battery], problems: List[str]) -> Optional[Dict[str, Any]]:
    """The entry's fields, or None when there is nothing to show (no battery).

    ``problems`` receives a short description (the field, never a value) of each
    value left out.
    """
    if display is None or display.present is not True:
        return None
    out: Dict[str, Any] = {"title": {"value": "Battery", "privacy": "public", "role": "title"}}
    level = _percentage(display.percentage)
    if level is None and display.percentage is not None:
        problems.append("percentage")
    if level is not None:
        out["level"] = {"value": "%d %%" % round(level), "privacy": "public", "role": "value"}
        out["gauge"] = {"value": round(level / 100, 4), "privacy": "public", "role": "gauge", "range": [0, 1]}
    state = _STATES.get(display.state) if isinstance(display.state, int) and not isinstance(display.state, bool) else None
    if state is None and display.state not in (None, 0):
        problems.append("state")
    if state is not None:
        out["state"] = {"value": state, "privacy": "public", "role": "detail"}
    icon = clean_icon(display.icon)
    if icon is None and display.icon not in (None, ""):
        problems.append("icon")
    out["icon"] = {"value": icon or "battery-missing-symbolic", "privacy": "public", "role": "icon"}
    for index, device in enumerate(peripherals[:4]):
        level = _percentage(device.percentage)
        if level is None:
            problems.append("peripheral percentage")
            continue
        name = clean(device.model, 40).value or _PERIPHERAL_TYPES.get(device.kind, "device")
        out["peripheral%d" % (index + 1)] = {"value": "%s %d %%" % (name, round(level)), "privacy": "public", "role": "detail"}
    return out


def timeline(display: Optional[Battery], peripherals: Sequence[Battery], now: _dt.datetime,
             problems: Optional[List[str]] = None) -> Dict[str, Any]:
    """The whole PutTimeline: one entry, now (a battery's next level cannot be
    foreseen, so nothing is dated ahead), never reloaded (UPower's signals say when
    to write again); no battery: no entry, the placeholder shows."""
    shown = fields(display, peripherals, problems if problems is not None else [])
    entries = [] if shown is None else [{"date": now, "fields": shown}]
    return {"family": FAMILY, "entries": entries, "policy": {"kind": "never"}, "placeholder": placeholder()}


def is_peripheral(kind: Any) -> bool:
    """Whether a UPower device type is a peripheral worth a line."""
    return isinstance(kind, int) and kind in _PERIPHERAL_TYPES
