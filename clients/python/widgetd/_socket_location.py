"""Where widgetd's socket is: the same rules as widgetctl (DESIGN §7)."""

from __future__ import annotations

import os
from typing import Mapping, Optional

#: The system daemon's socket, used by root.
SYSTEM_PATH = "/run/widgetd/widgetd.sock"


def resolve_socket(
    socket: Optional[str] = None,
    environment: Optional[Mapping[str, str]] = None,
    user_id: Optional[int] = None,
) -> str:
    """The socket path: ``socket`` if given, else ``WIDGETD_SOCKET``, else root's
    system path, else ``$XDG_RUNTIME_DIR/widgetd/widgetd.sock``.

    Without an absolute ``XDG_RUNTIME_DIR`` (the XDG specification ignores a
    relative one, and so does widgetd) the user's runtime directory is
    ``/run/user/UID``, where systemd-logind puts it. Empty variables count as unset.
    """
    if socket is not None:
        return os.fspath(socket)
    env = os.environ if environment is None else environment
    uid = os.getuid() if user_id is None else user_id
    from_environment = env.get("WIDGETD_SOCKET")
    if from_environment:
        return from_environment
    if uid == 0:
        return SYSTEM_PATH
    runtime = env.get("XDG_RUNTIME_DIR") or ""
    if not runtime.startswith("/"):
        runtime = "/run/user/%d" % uid
    return runtime + "/widgetd/widgetd.sock"
