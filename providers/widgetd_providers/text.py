"""Text from a source, made fit for a widget, or left out.

A calendar event's title or a player's metadata comes from whatever wrote it: a
shared calendar, a web page's title. Before it reaches a timeline it is cleaned:

- not a string (a player sending a number or a list where MPRIS says ``s``): left out;
- control characters (C0, C1, DEL), the bidirectional overrides and isolates that
  make text read differently from how it is stored (U+202A–U+202E, U+2066–U+2069,
  and the marks U+200E, U+200F, U+061C), and the other format characters
  (category Cf: zero-width joiners aside) are removed; runs of white space become
  one space;
- longer than ``limit`` characters (a widget shows a line or two): cut at a
  character boundary with an ellipsis. Input longer than ``MAX_INPUT`` (a 10 MB
  title) is cut before it is even looked at, so cleaning costs what ``MAX_INPUT`` costs;
- nothing left after that: left out.

:func:`clean` says what it did (:class:`Cleaned`), so that the provider can log
*that* a value was changed or left out, naming the field, never the value.
"""

from __future__ import annotations

import unicodedata
from typing import Any, NamedTuple, Optional

#: Characters looked at, at most: anything beyond is cut unread.
MAX_INPUT = 4096

#: The longest text a widget field gets, in characters.
DEFAULT_LIMIT = 120

# Bidirectional formatting: embeddings and overrides, isolates, and the marks.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
# Format characters kept: zero-width (non-)joiners shape emoji and scripts.
_KEEP_FORMAT = frozenset("\u200c\u200d")


class Cleaned(NamedTuple):
    """A cleaned value (None: left out) and why it differs from the input, if it does."""

    value: Optional[str]
    problem: Optional[str]


def clean(value: Any, limit: int = DEFAULT_LIMIT) -> Cleaned:
    """``value`` as a widget may show it; see the module's text."""
    if value is None:
        return Cleaned(None, None)
    if not isinstance(value, str):
        return Cleaned(None, "not text (%s)" % type(value).__name__)
    problem = None
    if len(value) > MAX_INPUT:
        value = value[:MAX_INPUT]
        problem = "too long"
    out = []
    space = False
    removed = False
    for character in value:
        if character in _BIDI:
            removed = True
            continue
        category = unicodedata.category(character)
        if category == "Zs" or character in "\t\n\r\f\v":
            space = bool(out)
            continue
        if category in ("Cc", "Cs", "Co", "Cn") or (category == "Cf" and character not in _KEEP_FORMAT):
            removed = True
            continue
        if space:
            out.append(" ")
            space = False
        out.append(character)
    text = "".join(out)
    if removed and problem is None:
        problem = "control or bidirectional characters removed"
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "\u2026"
        problem = problem or "too long"
    if not text:
        return Cleaned(None, problem or "empty")
    return Cleaned(text, problem)


def clean_icon(value: Any) -> Optional[str]:
    """A freedesktop icon name as widgetd's ``icon`` role takes it (``[a-z0-9-]``, at
    most 64 bytes), else None."""
    if not isinstance(value, str) or not value or len(value) > 64:
        return None
    if all(c in "abcdefghijklmnopqrstuvwxyz0123456789-" for c in value):
        return value
    return None
