"""Clients for widgetd: feed or draw widgets without writing Varlink by hand.

A host (a lock screen, a bar) follows what a surface may show::

    import widgetd
    with widgetd.Client() as c:
        for p in c.watch("com.example.weather/forecast", "lockScreen"):
            print(p["mode"], {k: f["value"] for k, f in p["entry"]["fields"].items()})

A provider writes its widgets' timelines when widgetd asks, on its own schedule,
and again whenever widgetd restarts; :class:`Provider` does all three, naming its
provider so that it never answers another app's requests::

    def forecast(widget, reason):
        return {"entries": [{"date": datetime.now(timezone.utc),
                             "fields": {"temperature": {"value": 7}}}],
                "policy": "never"}

    widgetd.Provider("com.example.weather", ["com.example.weather/forecast"],
                     forecast, every=600).run()

A single write is ``Client().put_timeline(widget, entries, policy=...)``.

:class:`Client` is synchronous, :class:`widgetd.aio.Client` its asyncio twin.
Errors are :class:`Error` (``name``, ``parameters``) or its subclass named after
widgetd's error. Standard library only; Python 3.9 or later.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._client import Client, Stream
from ._provider import Provider
from . import _errors
from ._errors import *  # noqa: F401,F403  (every error class, as _errors.__all__ names them)
from ._protocol import MAX_LIST_WIDGETS
from ._socket_location import resolve_socket

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # ``widgetd.aio`` on first use: a synchronous script does not pay for importing asyncio.
    if name == "aio":
        return importlib.import_module(".aio", __name__)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


# The errors are listed once, in _errors.__all__.
__all__ = ["Client", "Provider", "Stream", "aio", "resolve_socket", "MAX_LIST_WIDGETS"] + [
    name for name in _errors.__all__ if name != "error_from_reply"
]
