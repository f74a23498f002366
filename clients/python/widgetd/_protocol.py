"""The wire, written once for both clients: Varlink framing and every call.

Varlink messages are JSON objects, each followed by a NUL byte, over a Unix
stream socket. A call with ``"more": true`` is answered by a stream of replies
with ``"continues": true``. Nothing here does I/O: the synchronous and the
asyncio client each send what :func:`encode_call` makes and feed what they read to a
:class:`MessageReader`.
"""

from __future__ import annotations

import datetime as _dt
import json
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from ._errors import Error, MalformedReply, TooLarge, error_from_reply

#: A message may be at most this long (widgetd's own limit is 2 MiB per message;
#: a reply such as a very large ListWidgets page may be longer, so be generous).
MAX_MESSAGE_BYTES = 64 * 1024 * 1024

#: What a passcode may be given as.
Passcode = Union[str, bytes, bytearray, memoryview]


class Call:
    """One method call: its name, parameters, and how to read its reply."""

    __slots__ = ("method", "parameters", "result", "secret", "max_reply_bytes")

    def __init__(
        self,
        method: str,
        parameters: Optional[Dict[str, Any]] = None,
        result: Optional[Callable[[Dict[str, Any]], Any]] = None,
        secret: Optional[bytearray] = None,
        max_reply_bytes: int = MAX_MESSAGE_BYTES,
    ) -> None:
        self.method = method
        self.parameters = parameters or {}
        self.result = result or (lambda parameters: None)
        # The longest reply this call can have: a longer one is MalformedReply.
        self.max_reply_bytes = max_reply_bytes
        # A parameter kept out of ``parameters``, spliced into the message as
        # bytes (see ``encode_call``): the passcode.
        self.secret = secret


_HEX = b"0123456789abcdef"


def _escaped_length(value: bytearray) -> int:
    """How long ``value`` is once escaped for the inside of a JSON string."""
    length = 0
    for byte in value:
        length += 2 if byte in (0x22, 0x5C) else 6 if byte < 0x20 else 1
    return length


def _escape_into(out: bytearray, at: int, value: bytearray) -> int:
    """Writes UTF-8 ``value`` escaped for a JSON string into ``out`` at ``at``; the end.

    Bytes of 0x80 and more pass as they are (JSON text is UTF-8; widgetd refuses
    invalid UTF-8); quotes, backslashes and control characters are escaped.
    """
    for byte in value:
        if byte == 0x22 or byte == 0x5C:
            out[at] = 0x5C
            out[at + 1] = byte
            at += 2
        elif byte < 0x20:
            out[at : at + 4] = b"\\u00"
            out[at + 4] = _HEX[byte >> 4]
            out[at + 5] = _HEX[byte & 0xF]
            at += 6
        else:
            out[at] = byte
            at += 1
    return at


def zero(buffer: bytearray) -> None:
    """Overwrites every byte of ``buffer`` with zero, in place."""
    buffer[:] = bytes(len(buffer))
    # Slice assignment of an equal length writes in place; the bytes object of
    # zeros it copies from holds nothing secret.


def passcode_buffer(passcode: Passcode) -> bytearray:
    """A new bytearray holding the passcode's UTF-8 bytes.

    A ``str`` is encoded (Python makes a temporary ``bytes`` on the way, which it
    frees without zeroing); bytes-like values are copied. The caller's object is
    left alone: zeroing it, if it is a bytearray, is the caller's business.
    """
    if isinstance(passcode, str):
        return bytearray(passcode, "utf-8")
    if isinstance(passcode, (bytes, bytearray, memoryview)):
        return bytearray(passcode)
    raise TypeError("a passcode is a str or bytes-like, not %s" % type(passcode).__name__)


class MessageReader:
    """Splits a byte stream at NUL bytes and decodes each message."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        #: The longest message accepted: the connection sets it to the reply it awaits.
        self.limit = MAX_MESSAGE_BYTES

    def feed(self, data: bytes) -> None:
        """Adds bytes read from the socket."""
        self._buffer += data
        if len(self._buffer) > self.limit and self._buffer.find(b"\0", 0, self.limit + 1) < 0:
            raise MalformedReply(None, {"reason": "reply longer than %d bytes" % self.limit})

    def next_message(self) -> Optional[Dict[str, Any]]:
        """The next complete message, or None until more bytes arrive."""
        end = self._buffer.find(b"\0")
        if end > self.limit:
            raise MalformedReply(None, {"reason": "reply longer than %d bytes" % self.limit})
        if end < 0:
            return None
        raw = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        try:
            message = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise MalformedReply(None, {"reason": "a reply is not JSON"}) from None
        except RecursionError:
            # Python's decoder recurses once per level: a reply nested deeper than the
            # interpreter's recursion limit is no reply of widgetd's.
            raise MalformedReply(None, {"reason": "a reply is nested too deeply"}) from None
        if not isinstance(message, dict):
            raise MalformedReply(None, {"reason": "a reply is not a JSON object"})
        return message

    def clear(self) -> None:
        """Drops what was read and not used (replies may hold content), zeroed."""
        zero(self._buffer)
        del self._buffer[:]


def decode_reply(call: Call, message: Mapping[str, Any]) -> Any:
    """The call's result from its reply; raises the error the reply carries.

    Whatever else goes wrong reading the reply (a member of the wrong type, nesting
    that only the reading of it finds too deep) raises :class:`MalformedReply`, so
    that a caller catching :class:`widgetd.Error` catches every failure of a call.
    The reason names the exception's type only: the reply may hold content.
    """
    try:
        return call.result(reply_parameters(message))
    except Error:
        raise
    except Exception as error:
        raise MalformedReply(None, {"reason": "the reply cannot be read (%s)" % type(error).__name__}) from None


def reply_parameters(message: Mapping[str, Any]) -> Dict[str, Any]:
    """A reply's parameters; raises the error it carries instead."""
    error = message.get("error")
    if error is not None:
        raise error_from_reply(str(error), message.get("parameters"))
    parameters = message.get("parameters")
    return dict(parameters) if isinstance(parameters, Mapping) else {}


# --- What callers may pass, in the wire's spelling --------------------------------


def surface_name(surface: str) -> str:
    """``lockScreen``, or widgetctl's spelling ``lock-screen``, as the wire spells it."""
    if "-" not in surface:
        return surface
    head, *rest = surface.split("-")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def rfc3339(value: Any) -> Any:
    """An aware ``datetime`` as RFC 3339 in UTC; any other value unchanged."""
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError("a naive datetime has no time zone: give tzinfo (datetime.timezone.utc)")
        utc = value.astimezone(_dt.timezone.utc)
        text = utc.strftime("%Y-%m-%dT%H:%M:%S")
        if utc.microsecond:
            text += (".%06d" % utc.microsecond).rstrip("0")
        return text + "Z"
    return value


def wire_entries(entries: Iterable[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """Entries as the wire takes them; a ``date`` may be an aware datetime."""
    out = []
    for entry in entries:
        wire = dict(entry)
        if "date" in wire:
            wire["date"] = rfc3339(wire["date"])
        out.append(wire)
    return out


def wire_policy(policy: Any) -> Optional[Dict[str, Any]]:
    """A reload policy: a dict as the wire has it, ``"atEnd"`` or ``"never"``, or a
    datetime (WidgetKit's ``.after(date)``)."""
    if policy is None:
        return None
    if isinstance(policy, str):
        return {"kind": policy}
    if isinstance(policy, _dt.datetime):
        return {"kind": "after", "date": rfc3339(policy)}
    wire = dict(policy)
    if "date" in wire:
        wire["date"] = rfc3339(wire["date"])
    return wire


def _without_none(parameters: Dict[str, Any]) -> Dict[str, Any]:
    return {key: value for key, value in parameters.items() if value is not None}


def _get(key: str) -> Callable[[Dict[str, Any]], Any]:
    return lambda parameters: parameters.get(key)


# --- Every call, once --------------------------------------------------------------


def status() -> Call:
    """``io.widgetd.Device.GetStatus``: the reply as it is."""
    return Call("io.widgetd.Device.GetStatus", result=lambda p: p)


def unlock(passcode: bytearray) -> Call:
    """``io.widgetd.Device.Unlock``; ``passcode`` is zeroed by the client after sending."""
    return Call("io.widgetd.Device.Unlock", secret=passcode)


def lock() -> Call:
    """``io.widgetd.Device.Lock``."""
    return Call("io.widgetd.Device.Lock")


def settings() -> Call:
    """``io.widgetd.Device.GetSettings``: the settings."""
    return Call("io.widgetd.Device.GetSettings", result=_get("settings"))


def set_settings(
    lock_screen_widgets_access: Optional[bool],
    hide_sensitive_complications: Optional[str],
    hidden_complications: Optional[Sequence[str]],
    hidden_lock_screen_widgets: Optional[Sequence[str]] = None,
) -> Call:
    """``io.widgetd.Device.SetSettings``: all the settings after the change."""
    return Call(
        "io.widgetd.Device.SetSettings",
        _without_none(
            {
                "lockScreenWidgetsAccess": lock_screen_widgets_access,
                "hiddenLockScreenWidgets": (
                    list(hidden_lock_screen_widgets) if hidden_lock_screen_widgets is not None else None
                ),
                "hideSensitiveComplications": hide_sensitive_complications,
                "hiddenComplications": list(hidden_complications) if hidden_complications is not None else None,
            }
        ),
        result=_get("settings"),
    )


def put_timeline(
    widget: str,
    entries: Iterable[Mapping[str, Any]],
    family: Optional[str],
    policy: Any,
    placeholder: Optional[Mapping[str, Any]],
) -> Call:
    """``io.widgetd.Provider.PutTimeline``: the new generation."""
    return Call(
        "io.widgetd.Provider.PutTimeline",
        _without_none(
            {
                "widget": widget,
                "family": family,
                "entries": wire_entries(entries),
                "policy": wire_policy(policy),
                "placeholder": dict(placeholder) if placeholder is not None else None,
            }
        ),
        result=_get("generation"),
    )


def append_entries(widget: str, entries: Iterable[Mapping[str, Any]]) -> Call:
    """``io.widgetd.Provider.AppendEntries``: the new generation."""
    return Call(
        "io.widgetd.Provider.AppendEntries",
        {"widget": widget, "entries": wire_entries(entries)},
        result=_get("generation"),
    )


def get_timeline(widget: str) -> Call:
    """``io.widgetd.Provider.GetTimeline``: family, entries, policy, generation."""
    return Call("io.widgetd.Provider.GetTimeline", {"widget": widget}, result=lambda p: p)


def close_timeline(widget: str) -> Call:
    """``io.widgetd.Provider.CloseTimeline``."""
    return Call("io.widgetd.Provider.CloseTimeline", {"widget": widget})


def delete_timeline(widget: str) -> Call:
    """``io.widgetd.Provider.DeleteTimeline``."""
    return Call("io.widgetd.Provider.DeleteTimeline", {"widget": widget})


#: ListWidgets is read a page of this many widgets at a time.
LIST_PAGE = 500

#: The longest page of LIST_PAGE widgets: a WidgetInfo's strings are a widget id (at
#: most 255 bytes) and its parts, a family and a class, well under 2 KiB in all.
LIST_PAGE_BYTES = 1 << 20

#: ``list_widgets()`` reads at most this many widgets (and so this many divided by
#: ``LIST_PAGE`` pages) unless given another ``max_widgets``: a server that always
#: answers with one more page cannot make it read without end.
MAX_LIST_WIDGETS = 100_000


class WidgetList:
    """The pages of one ``list_widgets()``, collected: bounded in pages and widgets.

    widgetd answers a ``limit`` with full pages while more remain, each ``next``
    naming the last widget of its page; so ``max_widgets`` widgets take at most
    ``ceil(max_widgets / LIST_PAGE)`` pages. A page longer than asked, a ``next`` that
    repeats the page before's, or members of the wrong type raise
    :class:`MalformedReply`; a listing that would pass ``max_widgets`` raises
    :class:`TooLarge` named ``widgetd.TooManyWidgets`` whose ``limit`` is the bound.
    """

    def __init__(self, provider: Optional[str], max_widgets: int) -> None:
        if isinstance(max_widgets, bool) or not isinstance(max_widgets, int) or max_widgets < 1:
            raise ValueError("max_widgets is a positive int, not %r" % (max_widgets,))
        self.provider = provider
        self.max_widgets = max_widgets
        self.max_pages = -(-max_widgets // LIST_PAGE)
        self.widgets: List[Dict[str, Any]] = []
        self.after: Optional[str] = None
        self.pages = 0

    def next_call(self) -> Call:
        """The call for the next page."""
        return list_widgets_page(self.provider, self.after)

    def take(self, page: Mapping[str, Any]) -> bool:
        """Adds a page's widgets; whether another page is to be read."""
        widgets = page.get("widgets", [])
        following = page.get("next")
        if not isinstance(widgets, list) or not all(isinstance(widget, dict) for widget in widgets):
            raise MalformedReply(None, {"reason": "ListWidgets: widgets is not a list of objects"})
        if len(widgets) > LIST_PAGE:
            raise MalformedReply(None, {"reason": "ListWidgets: a page longer than the %d widgets asked for" % LIST_PAGE})
        if following is not None and (not isinstance(following, str) or following == self.after):
            raise MalformedReply(None, {"reason": "ListWidgets: next does not move on"})
        self.pages += 1
        if len(self.widgets) + len(widgets) > self.max_widgets or (following is not None and self.pages >= self.max_pages):
            raise TooLarge("widgetd.TooManyWidgets", {"limit": self.max_widgets})
        self.widgets.extend(widgets)
        self.after = following
        return following is not None


def list_widgets_page(provider: Optional[str], after: Optional[str]) -> Call:
    """One page of ``io.widgetd.Host.ListWidgets``: the reply (``widgets``, ``next``)."""
    return Call(
        "io.widgetd.Host.ListWidgets",
        _without_none({"provider": provider, "after": after, "limit": LIST_PAGE}),
        result=lambda p: p,
        max_reply_bytes=LIST_PAGE_BYTES,
    )


def get_presentation(widget: str, surface: str) -> Call:
    """``io.widgetd.Host.GetPresentation``: the presentation."""
    return Call(
        "io.widgetd.Host.GetPresentation",
        {"widget": widget, "surface": surface_name(surface)},
        result=_get("presentation"),
    )


def reload_timelines(provider: Optional[str], kind: Optional[str]) -> Call:
    """``io.widgetd.Host.ReloadTimelines``."""
    return Call("io.widgetd.Host.ReloadTimelines", _without_none({"provider": provider, "kind": kind}))


def set_passcode(current: Optional[bytearray], new: Optional[bytearray]) -> Call:
    """``io.widgetd.Device.SetPasscode``; both passcodes go in the message as bytes."""
    return _TwoSecretCall(current, new)


def watch(widget: str, surface: str) -> Call:
    """``io.widgetd.Host.Watch`` (with ``more``): each presentation."""
    return Call(
        "io.widgetd.Host.Watch",
        {"widget": widget, "surface": surface_name(surface)},
        result=_get("presentation"),
    )


def watch_reloads(provider: Optional[str] = None) -> Call:
    """``io.widgetd.Provider.WatchReloads`` (with ``more``): ``widget`` and ``reason``,
    for ``provider``'s widgets only when it is given."""
    return Call("io.widgetd.Provider.WatchReloads", _without_none({"provider": provider}), result=lambda p: p)


def perform_action(widget: str, surface: str, action: str) -> Call:
    """``io.widgetd.Host.PerformAction`` (with ``more`` to hear a held action's end):
    ``outcome``, one of ``"delivered"``, ``"held"`` or ``"expired"``."""
    return Call(
        "io.widgetd.Host.PerformAction",
        {"widget": widget, "surface": surface_name(surface), "action": action},
        result=_get("outcome"),
    )


def watch_actions(provider: Optional[str]) -> Call:
    """``io.widgetd.Provider.WatchActions`` (with ``more``): each delivered action
    (``id``, ``widget``, ``action``, ``isOn``, ``surface``, ``whileLocked``)."""
    return Call("io.widgetd.Provider.WatchActions", _without_none({"provider": provider}), result=lambda p: p)


def watch_widgets() -> Call:
    """``io.widgetd.Host.WatchWidgets`` (with ``more``): ``event`` and ``widget``."""
    return Call("io.widgetd.Host.WatchWidgets", result=lambda p: p)


def monitor() -> Call:
    """``io.widgetd.Device.Monitor`` (with ``more``): each device event."""
    return Call("io.widgetd.Device.Monitor", result=_get("event"))


class _TwoSecretCall(Call):
    """SetPasscode: up to two secrets, ``current`` and ``new``."""

    __slots__ = ("secrets",)

    def __init__(self, current: Optional[bytearray], new: Optional[bytearray]) -> None:
        super().__init__("io.widgetd.Device.SetPasscode")
        self.secrets = [(name, value) for name, value in (("current", current), ("new", new)) if value is not None]


def encode_call(call: Call, more: bool = False) -> bytearray:
    """The NUL-terminated message for any call, secrets spliced in as bytes."""
    if isinstance(call, _TwoSecretCall):
        secrets = call.secrets
    elif call.secret is not None:
        secrets = [("passcode", call.secret)]
    else:
        message: Dict[str, Any] = {"method": call.method, "parameters": call.parameters}
        if more:
            message["more"] = True
        out = bytearray(json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
        out += b"\0"
        return out
    # Built in one buffer of the exact size: growing a bytearray reallocates it and
    # leaves the old copy, secret included, in freed memory.
    pieces: List[Union[bytes, bytearray]] = [b'{"method":' + json.dumps(call.method).encode("utf-8") + b',"parameters":{']
    for index, (name, value) in enumerate(secrets):
        pieces.append((b"," if index else b"") + json.dumps(name).encode("utf-8") + b':"')
        pieces.append(value)
        pieces.append(b'"')
    pieces.append(b"}}\0")
    size = sum(_escaped_length(piece) if isinstance(piece, bytearray) else len(piece) for piece in pieces)
    out = bytearray(size)
    at = 0
    for piece in pieces:
        if isinstance(piece, bytearray):
            at = _escape_into(out, at, piece)
        else:
            out[at : at + len(piece)] = piece
            at += len(piece)
    return out


def secrets_of(call: Call) -> List[bytearray]:
    """The secret buffers a call holds: zero them once it is sent."""
    if isinstance(call, _TwoSecretCall):
        return [value for _, value in call.secrets]
    return [call.secret] if call.secret is not None else []
