"""Timelines the tests write: a secret field, a public one, and a placeholder."""

from __future__ import annotations

import datetime as dt
from typing import Any, Dict, List

UTC = dt.timezone.utc


def now() -> dt.datetime:
    """Now, to the second, in UTC."""
    return dt.datetime.now(UTC).replace(microsecond=0)


def entries(secret: str = "12 rue X", temperature: int = 7) -> List[Dict[str, Any]]:
    """One entry dated a minute ago (so it is current), with a sensitive field."""
    return [
        {
            "date": now() - dt.timedelta(minutes=1),
            "fields": {
                "city": {"value": "Lyon", "privacy": "public"},
                "temperature": {"value": temperature},
                "home": {"value": secret, "privacy": "sensitive"},
            },
        }
    ]


PLACEHOLDER: Dict[str, Any] = {
    "fields": {
        "city": {"value": "City", "privacy": "public"},
        "temperature": {"value": 0},
        "home": {"value": "Address"},
    }
}


def values(presentation: Dict[str, Any]) -> Dict[str, Any]:
    """A presentation's field values by name."""
    return {name: field.get("value") for name, field in presentation["entry"]["fields"].items()}
