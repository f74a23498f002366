"""The now-playing widget's timeline, from an MPRIS player's state: pure, no I/O.

``org.widgetd.media/nowPlaying`` shows the active player's title and artist
(``sensitive``: what someone listens to is theirs), its state and the position as a
gauge (``public``), with play/pause as a toggle and next/previous as buttons, all
``alwaysAllowed`` as on every phone's lock screen.

While playing at a known rate, the position is foreseeable: the timeline holds an
entry at each step of the track (at most ``MAX_STEPS``, at least ``MIN_STEP``
seconds apart), so the host moves the gauge with nothing woken here.
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from .text import clean

PROVIDER = "org.widgetd.media"
WIDGET = PROVIDER + "/nowPlaying"
FAMILY = "accessoryRectangular"
MAX_STEPS = 20
MIN_STEP = 5.0


class Player(NamedTuple):
    """An MPRIS player's state as read (``metadata`` values may be of any type)."""

    status: Any                       # PlaybackStatus: "Playing", "Paused", "Stopped"
    metadata: Any                     # Metadata: a dict (a{sv} unpacked)
    position: Any = None              # Position, microseconds, as read at ``read_at``
    rate: Any = 1.0
    can_next: Any = False
    can_previous: Any = False
    can_control: Any = True


class Shown(NamedTuple):
    """What the widget shows, validated: equal values mean nothing to write."""

    status: str
    title: Optional[str]
    artist: Optional[str]
    length: Optional[float]           # seconds
    position: Optional[float]         # seconds, at the time of reading
    rate: float
    can_next: bool
    can_previous: bool
    can_control: bool


def _number(value: Any) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def shown(player: Player, problems: List[str]) -> Shown:
    """The player's state as the widget may show it; ``problems`` gets the name of
    each value left out (never the value)."""
    status = player.status if player.status in ("Playing", "Paused", "Stopped") else "Stopped"
    if player.status not in ("Playing", "Paused", "Stopped"):
        problems.append("PlaybackStatus")
    metadata = player.metadata if isinstance(player.metadata, dict) else {}
    if not isinstance(player.metadata, dict) and player.metadata is not None:
        problems.append("Metadata")
    title = clean(metadata.get("xesam:title"))
    if title.problem:
        problems.append("xesam:title: " + title.problem)
    artists = metadata.get("xesam:artist")
    if isinstance(artists, str):
        artists = [artists]
    artist = None
    if isinstance(artists, (list, tuple)):
        names = [clean(name, 60) for name in artists[:8]]
        for name in names:
            if name.problem:
                problems.append("xesam:artist: " + name.problem)
        joined = ", ".join(name.value for name in names if name.value)
        artist = clean(joined).value
    elif artists is not None:
        problems.append("xesam:artist: not a list of text")
    length = _number(metadata.get("mpris:length"))
    if metadata.get("mpris:length") is not None and (length is None or length <= 0):
        problems.append("mpris:length")
    length = length / 1e6 if length is not None and length > 0 else None
    position = _number(player.position)
    position = max(0.0, position / 1e6) if position is not None else None
    rate = _number(player.rate)
    rate = rate if rate is not None and rate > 0 else 1.0
    return Shown(status, title.value, artist, length, position, rate,
                 player.can_next is True, player.can_previous is True, player.can_control is not False)


def placeholder() -> Dict[str, Any]:
    return {"fields": {
        "title": {"value": "Now Playing", "privacy": "public", "role": "title"},
        "icon": {"value": "audio-x-generic-symbolic", "privacy": "public", "role": "icon"},
    }}


def _actions(state: Shown) -> List[Dict[str, Any]]:
    if not state.can_control:
        return []
    actions = [{"id": "playPause", "title": "Pause" if state.status == "Playing" else "Play",
                "icon": "media-playback-start-symbolic", "kind": "toggle", "isOn": state.status == "Playing",
                "authentication": "alwaysAllowed"}]
    if state.can_previous:
        actions.append({"id": "previous", "title": "Previous", "icon": "media-skip-backward-symbolic",
                        "kind": "button", "authentication": "alwaysAllowed"})
    if state.can_next:
        actions.append({"id": "next", "title": "Next", "icon": "media-skip-forward-symbolic",
                        "kind": "button", "authentication": "alwaysAllowed"})
    return actions


def _fields(state: Shown, position: Optional[float]) -> Dict[str, Any]:
    fields: Dict[str, Any] = {
        "title": {"value": state.title or "Unknown title", "privacy": "sensitive", "role": "title"},
    }
    if state.artist:
        fields["artist"] = {"value": state.artist, "privacy": "sensitive", "role": "detail"}
    fields["state"] = {"value": state.status, "privacy": "public", "role": "detail"}
    if state.length is not None and position is not None:
        fields["position"] = {"value": round(min(1.0, position / state.length), 4), "privacy": "public",
                              "role": "gauge", "range": [0, 1]}
    icon = "media-playback-start-symbolic" if state.status == "Playing" else "media-playback-pause-symbolic"
    fields["icon"] = {"value": icon, "privacy": "public", "role": "icon"}
    return fields


def steps(state: Shown) -> List[Tuple[float, float]]:
    """(seconds from now, position) of each entry: now, then each foreseeable step."""
    if state.position is None or state.length is None or state.status != "Playing":
        return [(0.0, state.position if state.position is not None else 0.0)]
    remaining = max(0.0, state.length - state.position) / state.rate
    step = max(MIN_STEP, state.length / MAX_STEPS / state.rate)
    out = [(0.0, state.position)]
    offset = step
    while offset < remaining and len(out) < MAX_STEPS + 1:
        out.append((offset, state.position + offset * state.rate))
        offset += step
    if remaining > 0:
        out.append((remaining, state.length))
    return out


def timeline(state: Optional[Shown], now: _dt.datetime) -> Dict[str, Any]:
    """The whole PutTimeline: no player, no entry (the placeholder shows); a player,
    its entries at ``now`` and at each foreseeable step of the position. Never
    reloaded: the player's signals say when to write again."""
    entries = []
    if state is not None:
        actions = _actions(state)
        for offset, position in steps(state):
            entry: Dict[str, Any] = {"date": now + _dt.timedelta(seconds=offset), "fields": _fields(state, position)}
            if actions:
                entry["actions"] = actions
            entries.append(entry)
    return {"family": FAMILY, "entries": entries, "policy": {"kind": "never"}, "placeholder": placeholder()}


def foreseen(last: Optional[Tuple[Optional[str], Optional[Shown], float]], name: Optional[str],
             state: Optional[Shown], now: float) -> bool:
    """Whether the timeline written for ``last`` (player, state, monotonic time read)
    already shows ``state`` of player ``name`` read at ``now``: all but the position
    equal, and the position where that timeline foresaw it, within a second. So a
    signal that changes nothing the widget shows (a volume change, a position read
    again as it moves) writes nothing."""
    if last is None or state is None or last[1] is None:
        return False
    before_name, before, at = last
    if before_name != name or before._replace(position=None) != state._replace(position=None):
        return False
    if state.position is None or before.position is None:
        return state.position == before.position
    moving = state.status == "Playing" and state.length is not None
    expected = before.position + ((now - at) * state.rate if moving else 0.0)
    return abs(state.position - expected) < 1.0


def choose(players: Dict[str, Tuple[str, int]]) -> Optional[str]:
    """The active player among ``{name: (status, last change)}``: the one playing
    most recently changed, else the most recently changed."""
    if not players:
        return None
    playing = [(changed, name) for name, (status, changed) in players.items() if status == "Playing"]
    if playing:
        return max(playing)[1]
    return max((changed, name) for name, (status, changed) in players.items())[1]
