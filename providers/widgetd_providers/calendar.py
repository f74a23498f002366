"""The upcoming-events widget's timeline, from calendar events: pure, no I/O.

``org.widgetd.calendar/upcoming`` shows the next events of today and tomorrow: each
event's time is ``public`` (a busy afternoon is not a secret, what it is may be);
its title and location are ``sensitive``. The timeline holds one entry per change
that can be foreseen (an event starting or ending), so the host shows the right
next event at the right minute with nothing woken here. Its reload is due at the
next local midnight, when "tomorrow" moves on.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Dict, List, NamedTuple, Optional

from .text import clean

PROVIDER = "org.widgetd.calendar"
WIDGET = PROVIDER + "/upcoming"
FAMILY = "accessoryRectangular"
#: Events shown in one entry, the first with its location.
SHOWN = 3
#: Entries in one timeline, at most (each start and end of two days' events).
MAX_ENTRIES = 48

OPEN_ACTION = {"id": "open", "title": "Open Calendar", "icon": "x-office-calendar-symbolic", "kind": "button",
               "authentication": "requiresAuthentication"}


class Event(NamedTuple):
    """One occurrence of an event, as read (``summary``, ``location``: any type)."""

    start: _dt.datetime               # aware
    end: _dt.datetime                 # aware, > start (an event without an end lasts to its start's day end)
    all_day: bool
    summary: Any
    location: Any
    key: str = ""                     # uid and recurrence id: orders equal starts


def rfc3339(moment: _dt.datetime) -> str:
    """``moment`` as RFC 3339 in UTC, to the second (a ``date`` field's value)."""
    return moment.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def window_end(now: _dt.datetime, zone: _dt.tzinfo) -> _dt.datetime:
    """The end of tomorrow, local time: the last instant the widget looks at."""
    local = now.astimezone(zone)
    day_after = (local + _dt.timedelta(days=2)).date()
    return _dt.datetime.combine(day_after, _dt.time(0), tzinfo=zone)


def next_midnight(now: _dt.datetime, zone: _dt.tzinfo) -> _dt.datetime:
    local = now.astimezone(zone)
    return _dt.datetime.combine((local + _dt.timedelta(days=1)).date(), _dt.time(0), tzinfo=zone)


def placeholder() -> Dict[str, Any]:
    return {"fields": {
        "title": {"value": "Calendar", "privacy": "public", "role": "title"},
        "icon": {"value": "x-office-calendar-symbolic", "privacy": "public", "role": "icon"},
    }, "actions": [OPEN_ACTION]}


def _day_word(start: _dt.datetime, at: _dt.datetime, zone: _dt.tzinfo) -> str:
    days = (start.astimezone(zone).date() - at.astimezone(zone).date()).days
    return "Today" if days <= 0 else "Tomorrow" if days == 1 else start.astimezone(zone).strftime("%A")


def _fields(upcoming: List[Event], at: _dt.datetime, zone: _dt.tzinfo, problems: List[str]) -> Dict[str, Any]:
    if not upcoming:
        return {
            "title": {"value": "No more events", "privacy": "public", "role": "title"},
            "when": {"value": "Today and tomorrow", "privacy": "public", "role": "detail"},
            "icon": {"value": "x-office-calendar-symbolic", "privacy": "public", "role": "icon"},
        }
    first = upcoming[0]
    title = clean(first.summary)
    if title.problem:
        problems.append("event title: " + title.problem)
    fields: Dict[str, Any] = {
        "title": {"value": title.value or "Untitled event", "privacy": "sensitive", "role": "title"},
    }
    if first.start <= at:
        when = "Now, until %s" % first.end.astimezone(zone).strftime("%H:%M") if not first.all_day else "Today, all day"
        fields["when"] = {"value": when, "privacy": "public", "role": "detail"}
    elif first.all_day:
        fields["when"] = {"value": _day_word(first.start, at, zone) + ", all day", "privacy": "public", "role": "detail"}
    else:
        fields["start"] = {"value": rfc3339(first.start), "privacy": "public", "role": "date", "style": "time"}
        fields["when"] = {"value": _day_word(first.start, at, zone), "privacy": "public", "role": "detail"}
    location = clean(first.location)
    if location.problem:
        problems.append("event location: " + location.problem)
    if location.value:
        fields["location"] = {"value": location.value, "privacy": "sensitive", "role": "detail"}
    for index, event in enumerate(upcoming[1:SHOWN], start=2):
        text = clean(event.summary)
        if text.problem:
            problems.append("event title: " + text.problem)
        time = "all day" if event.all_day else event.start.astimezone(zone).strftime("%H:%M")
        if _day_word(event.start, at, zone) != "Today":
            time = _day_word(event.start, at, zone) + " " + time
        fields["event%d" % index] = {"value": "%s %s" % (time, text.value or "Untitled event"),
                                      "privacy": "sensitive", "role": "detail"}
    fields["icon"] = {"value": "x-office-calendar-symbolic", "privacy": "public", "role": "icon"}
    return fields


def timeline(events: List[Event], now: _dt.datetime, zone: _dt.tzinfo,
             problems: Optional[List[str]] = None) -> Dict[str, Any]:
    """The whole PutTimeline for ``events`` (any order, any range) seen at ``now``."""
    problems = problems if problems is not None else []
    end = window_end(now, zone)
    relevant = sorted((e for e in events if e.end > now and e.start < end), key=lambda e: (e.start, e.end, e.key))
    changes = {now}
    for event in relevant:
        for moment in (event.start, event.end):
            if now < moment < end:
                changes.add(moment)
    entries = []
    for at in sorted(changes)[:MAX_ENTRIES]:
        upcoming = [e for e in relevant if e.end > at]
        entries.append({"date": at, "fields": _fields(upcoming[:SHOWN], at, zone, problems), "actions": [OPEN_ACTION]})
    return {"family": FAMILY, "entries": entries,
            "policy": {"kind": "after", "date": next_midnight(now, zone)}, "placeholder": placeholder()}


def absent() -> Dict[str, Any]:
    """No calendar to read (yet): no entry, the placeholder shows."""
    return {"family": FAMILY, "entries": [], "policy": {"kind": "never"}, "placeholder": placeholder()}


def key(events: List[Event], now: _dt.datetime, zone: _dt.tzinfo) -> Any:
    """What the timeline shows, for telling a change from a signal that changed nothing."""
    end = window_end(now, zone)
    return (end, tuple(sorted((e for e in events if e.end > now and e.start < end),
                              key=lambda e: (e.start, e.end, e.key))))
