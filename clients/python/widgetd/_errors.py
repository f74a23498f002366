"""The errors widgetd answers with, as Python exceptions (DESIGN §10).

Every one is a :class:`Error` whose ``name`` is the full Varlink error name
(``io.widgetd.WrongPasscode``) and whose ``parameters`` is the error's parameters
as they came over the wire. The subclasses are named after the IDL's errors and
give the parameters that matter as attributes (``WrongPasscode.failed_attempts``).
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Type

__all__ = [
    "Error",
    "DaemonUnavailable",
    "MalformedReply",
    "ProtectedDataUnavailable",
    "PermissionDenied",
    "WidgetNotFound",
    "ProviderNotRegistered",
    "UnavailableOnSurface",
    "InvalidTimeline",
    "TooLarge",
    "WrongPasscode",
    "TryAgainLater",
    "UnlockInterrupted",
    "PasscodeRequired",
    "Wiped",
    "StorageFailure",
    "ActionNotAvailable",
    "ProviderUnavailable",
    "error_from_reply",
]


class Error(Exception):
    """An error widgetd (or the connection to it) answered with.

    ``name`` is the full Varlink error name, ``parameters`` its parameters. The
    message names the error and its parameters; widgetd's errors never carry
    content or secrets, so it is safe to log.
    """

    #: The Varlink error name this class stands for (subclasses set it).
    varlink_name = "io.widgetd.Error"

    def __init__(self, name: Optional[str] = None, parameters: Optional[Mapping[str, Any]] = None) -> None:
        self.name: str = name if name is not None else self.varlink_name
        self.parameters: Dict[str, Any] = dict(parameters or {})
        details = ", ".join("%s=%r" % item for item in sorted(self.parameters.items()))
        super().__init__(self.name + (" (" + details + ")" if details else ""))


class DaemonUnavailable(Error):
    """widgetd is not reachable: no socket at the path, nobody listening, or the
    connection was closed (the daemon stopped or restarted). ``parameters`` has
    ``socket`` (the path tried) and ``reason``."""

    varlink_name = "widgetd.DaemonUnavailable"


class MalformedReply(Error):
    """What came back cannot be a reply of widgetd's: not JSON, nested too deeply,
    longer than any reply, not the shape the call's reply has, or a ``ListWidgets``
    page that does not move on. ``parameters`` has ``reason``, which never quotes the
    reply (it may hold content). The connection is closed."""

    varlink_name = "widgetd.MalformedReply"


class ProtectedDataUnavailable(Error):
    """The timeline's class key is not available in the current state: unlock first."""

    varlink_name = "io.widgetd.ProtectedDataUnavailable"


class PermissionDenied(Error):
    """The caller may not do this (or may not open the socket:
    ``name`` is then ``widgetd.SocketAccessDenied``)."""

    varlink_name = "io.widgetd.PermissionDenied"


class WidgetNotFound(Error):
    """No timeline is stored for this widget (``widget``)."""

    varlink_name = "io.widgetd.WidgetNotFound"

    @property
    def widget(self) -> Optional[str]:
        """The widget id asked for."""
        return self.parameters.get("widget")


class ProviderNotRegistered(Error):
    """No provider with this id is registered (``provider``)."""

    varlink_name = "io.widgetd.ProviderNotRegistered"

    @property
    def provider(self) -> Optional[str]:
        """The provider id asked for."""
        return self.parameters.get("provider")


class UnavailableOnSurface(Error):
    """The widget's class may not be shown on this surface (``surface``)."""

    varlink_name = "io.widgetd.UnavailableOnSurface"

    @property
    def surface(self) -> Optional[str]:
        """The surface asked for."""
        return self.parameters.get("surface")


class InvalidTimeline(Error):
    """The timeline is not valid; ``reason`` says why."""

    varlink_name = "io.widgetd.InvalidTimeline"

    @property
    def reason(self) -> Optional[str]:
        """Why the timeline was refused."""
        return self.parameters.get("reason")


class TooLarge(Error):
    """The timeline exceeds a limit, or the write would pass the provider's quota:
    ``limit`` is the limit passed. Nothing was changed."""

    varlink_name = "io.widgetd.TooLarge"

    @property
    def limit(self) -> Optional[int]:
        """The limit, in bytes or widgets, that the write would pass."""
        return self.parameters.get("limit")


class WrongPasscode(Error):
    """The passcode is wrong. ``failed_attempts`` counts the consecutive failures;
    ``retry_after`` is the seconds to wait before the next try, or None."""

    varlink_name = "io.widgetd.WrongPasscode"

    @property
    def failed_attempts(self) -> Optional[int]:
        """Consecutive failed attempts, this one included."""
        return self.parameters.get("failedAttempts")

    @property
    def retry_after(self) -> Optional[float]:
        """Seconds before the next Unlock is accepted; None if it is accepted now."""
        return self.parameters.get("retryAfter")


class TryAgainLater(Error):
    """Too many failed attempts: the next Unlock is accepted in ``retry_after`` seconds."""

    varlink_name = "io.widgetd.TryAgainLater"

    @property
    def retry_after(self) -> Optional[float]:
        """Seconds before the next Unlock is accepted."""
        return self.parameters.get("retryAfter")


class UnlockInterrupted(Error):
    """The passcode was right, but a Lock arrived while it was checked, and a Lock
    wins: the device stays locked. Not counted as a failure; unlock again."""

    varlink_name = "io.widgetd.UnlockInterrupted"


class PasscodeRequired(Error):
    """A passcode is required for this operation, or the current one is missing."""

    varlink_name = "io.widgetd.PasscodeRequired"


class Wiped(Error):
    """The device was wiped."""

    varlink_name = "io.widgetd.Wiped"


class StorageFailure(Error):
    """The state directory failed; ``reason`` names the operation, never content.
    The previous data is kept."""

    varlink_name = "io.widgetd.StorageFailure"

    @property
    def reason(self) -> Optional[str]:
        """The operation that failed."""
        return self.parameters.get("reason")


class ActionNotAvailable(Error):
    """The action (``action``) is not in what the surface shows now: a host may
    perform only an action of the presentation it is shown (DESIGN §13)."""

    varlink_name = "io.widgetd.ActionNotAvailable"

    @property
    def action(self) -> Optional[str]:
        """The action id asked for."""
        return self.parameters.get("action")


class ProviderUnavailable(Error):
    """No connection of the widget's provider (``provider``) watches its actions:
    the provider is not running."""

    varlink_name = "io.widgetd.ProviderUnavailable"

    @property
    def provider(self) -> Optional[str]:
        """The provider that would receive the action."""
        return self.parameters.get("provider")


_BY_SHORT_NAME: Dict[str, Type[Error]] = {
    cls.varlink_name.rsplit(".", 1)[1]: cls
    for cls in (
        ProtectedDataUnavailable,
        PermissionDenied,
        WidgetNotFound,
        ProviderNotRegistered,
        UnavailableOnSurface,
        InvalidTimeline,
        TooLarge,
        WrongPasscode,
        TryAgainLater,
        UnlockInterrupted,
        PasscodeRequired,
        Wiped,
        StorageFailure,
        ActionNotAvailable,
        ProviderUnavailable,
    )
}


def error_from_reply(name: str, parameters: Optional[Mapping[str, Any]]) -> Error:
    """The exception for a Varlink error reply.

    widgetd names its errors ``io.widgetd.NAME``; the interface-qualified spelling
    (``io.widgetd.Device.WrongPasscode``) maps to the same class, and so does the
    service interface's ``org.varlink.service.PermissionDenied``. Any other name is
    a plain :class:`Error`.
    """
    short = name.rsplit(".", 1)[-1]
    cls: Type[Error] = Error
    if name.startswith("io.widgetd.") or name == "org.varlink.service.PermissionDenied":
        cls = _BY_SHORT_NAME.get(short, Error)
    return cls(name, parameters if isinstance(parameters, Mapping) else {})
