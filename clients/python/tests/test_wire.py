"""The parts without a daemon: socket resolution, error mapping, message encoding."""

from __future__ import annotations

import datetime as dt
import glob
import json
import os
import re
import unittest

import widgetd
from widgetd import _protocol as wire
from widgetd._client import _Connection

from .daemon import REPOSITORY


class SocketLocationTests(unittest.TestCase):
    """The same table as WidgetdWire's SocketLocationTests (widgetd, widgetctl, WidgetdClient)."""

    cases = [
        ("/x.sock", {"WIDGETD_SOCKET": "/y.sock"}, 1000, "/x.sock"),
        (None, {"WIDGETD_SOCKET": "/y.sock", "XDG_RUNTIME_DIR": "/run/user/1000"}, 1000, "/y.sock"),
        (None, {"XDG_RUNTIME_DIR": "/run/user/1000"}, 0, "/run/widgetd/widgetd.sock"),
        (None, {"XDG_RUNTIME_DIR": "/run/user/1000"}, 1000, "/run/user/1000/widgetd/widgetd.sock"),
        (None, {}, 1001, "/run/user/1001/widgetd/widgetd.sock"),
        (None, {"WIDGETD_SOCKET": ""}, 0, "/run/widgetd/widgetd.sock"),
        (None, {"XDG_RUNTIME_DIR": "run/user/1000"}, 1000, "/run/user/1000/widgetd/widgetd.sock"),
    ]

    def test_socket_comes_from_argument_then_environment_then_defaults(self) -> None:
        for option, environment, uid, path in self.cases:
            with self.subTest(option=option, environment=environment, uid=uid):
                self.assertEqual(widgetd.resolve_socket(option, environment, uid), path)


class ErrorMappingTests(unittest.TestCase):
    def idl_errors(self) -> set:
        names = set()
        for path in glob.glob(os.path.join(REPOSITORY, "interfaces", "io.widgetd.*.varlink")):
            with open(path) as f:
                names.update(re.findall(r"^error (\w+)", f.read(), re.MULTILINE))
        return names

    def test_every_idl_error_maps_to_its_class(self) -> None:
        names = self.idl_errors()
        self.assertIn("WrongPasscode", names)
        for name in sorted(names):
            with self.subTest(name=name):
                error = wire.error_from_reply("io.widgetd." + name, {})
                self.assertIs(type(error), getattr(widgetd, name))
                self.assertIsInstance(error, widgetd.Error)
                self.assertEqual(error.name, "io.widgetd." + name)
                # The interface-qualified spelling means the same error.
                self.assertIs(type(wire.error_from_reply("io.widgetd.Device." + name, {})), getattr(widgetd, name))

    def test_parameters_become_attributes(self) -> None:
        wrong = wire.error_from_reply("io.widgetd.WrongPasscode", {"failedAttempts": 5, "retryAfter": 60.0})
        self.assertEqual((wrong.failed_attempts, wrong.retry_after), (5, 60.0))
        self.assertIsNone(wire.error_from_reply("io.widgetd.WrongPasscode", {"failedAttempts": 1}).retry_after)
        self.assertEqual(wire.error_from_reply("io.widgetd.TryAgainLater", {"retryAfter": 3.5}).retry_after, 3.5)
        self.assertEqual(wire.error_from_reply("io.widgetd.TooLarge", {"limit": 1048576}).limit, 1048576)
        self.assertEqual(wire.error_from_reply("io.widgetd.InvalidTimeline", {"reason": "r"}).reason, "r")
        self.assertEqual(wire.error_from_reply("io.widgetd.StorageFailure", {"reason": "write"}).reason, "write")

    def test_unknown_errors_are_plain_errors_with_their_name(self) -> None:
        error = wire.error_from_reply("org.varlink.service.MethodNotFound", {"method": "x"})
        self.assertIs(type(error), widgetd.Error)
        self.assertEqual((error.name, error.parameters), ("org.varlink.service.MethodNotFound", {"method": "x"}))
        self.assertIs(type(wire.error_from_reply("com.other.WrongPasscode", {})), widgetd.Error)

    def test_daemon_unavailable_is_an_error(self) -> None:
        self.assertTrue(issubclass(widgetd.DaemonUnavailable, widgetd.Error))

    def test_malformed_reply_is_an_error(self) -> None:
        self.assertTrue(issubclass(widgetd.MalformedReply, widgetd.Error))
        self.assertEqual(widgetd.MalformedReply().name, "widgetd.MalformedReply")


class _RecordingSocket:
    """Stands in for a socket: keeps the buffer it was given, as it was then."""

    def __init__(self) -> None:
        self.sent = b""
        self.buffer = None

    def settimeout(self, timeout: object) -> None:
        pass

    def sendall(self, data: bytearray) -> None:
        self.sent = bytes(data)
        self.buffer = data


class PasscodeMessageTests(unittest.TestCase):
    tricky = ['1234', 'a"b', "back\\slash", "ctl\x01\x1f\n", "\u00e9t\u00e9 \U0001f511", ""]

    def test_a_secret_message_is_the_json_of_the_call(self) -> None:
        for passcode in self.tricky:
            with self.subTest(passcode=passcode):
                message = wire.encode_call(wire.unlock(wire.passcode_buffer(passcode)))
                self.assertEqual(message[-1:], b"\0")
                self.assertEqual(json.loads(bytes(message[:-1])),
                                 {"method": "io.widgetd.Device.Unlock", "parameters": {"passcode": passcode}})
                both = wire.encode_call(wire.set_passcode(wire.passcode_buffer("old"), wire.passcode_buffer(passcode)))
                self.assertEqual(json.loads(bytes(both[:-1]))["parameters"], {"current": "old", "new": passcode})
                none = wire.encode_call(wire.set_passcode(wire.passcode_buffer("old"), None))
                self.assertEqual(json.loads(bytes(none[:-1]))["parameters"], {"current": "old"})

    def test_the_message_and_the_passcode_are_zeroed_once_sent(self) -> None:
        connection = _Connection.__new__(_Connection)
        connection.path = "test"
        connection.sock = _RecordingSocket()
        connection.reader = wire.MessageReader()
        secret = wire.passcode_buffer("s3cret")
        connection.send(wire.unlock(secret))
        self.assertIn(b"s3cret", connection.sock.sent)
        self.assertEqual(connection.sock.buffer, bytearray(len(connection.sock.buffer)))
        self.assertEqual(secret, bytearray(len("s3cret")))

    def test_a_passcode_is_a_string_or_bytes(self) -> None:
        self.assertEqual(wire.passcode_buffer(b"12"), bytearray(b"12"))
        self.assertEqual(wire.passcode_buffer(memoryview(b"12")), bytearray(b"12"))
        with self.assertRaises(TypeError):
            wire.passcode_buffer(1234)  # type: ignore[arg-type]


class WireValueTests(unittest.TestCase):
    def test_datetimes_become_rfc3339_in_utc(self) -> None:
        paris = dt.timezone(dt.timedelta(hours=1))
        self.assertEqual(wire.rfc3339(dt.datetime(2026, 12, 1, 10, 0, tzinfo=paris)), "2026-12-01T09:00:00Z")
        self.assertEqual(wire.rfc3339(dt.datetime(2026, 12, 1, 9, 0, 0, 500000, tzinfo=dt.timezone.utc)),
                         "2026-12-01T09:00:00.5Z")
        with self.assertRaises(ValueError):
            wire.rfc3339(dt.datetime(2026, 12, 1, 9, 0))

    def test_policies_in_widgetkit_shapes(self) -> None:
        self.assertEqual(wire.wire_policy("atEnd"), {"kind": "atEnd"})
        self.assertEqual(wire.wire_policy(dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)),
                         {"kind": "after", "date": "2026-12-01T00:00:00Z"})
        self.assertIsNone(wire.wire_policy(None))

    def test_surfaces_in_either_spelling(self) -> None:
        self.assertEqual(wire.surface_name("lock-screen"), "lockScreen")
        self.assertEqual(wire.surface_name("always-on"), "alwaysOn")
        self.assertEqual(wire.surface_name("homeScreen"), "homeScreen")

    def test_replies_split_at_nul(self) -> None:
        reader = wire.MessageReader()
        reader.feed(b'{"parameters":{"a":1}}\0{"error":"io.widgetd.Wiped"')
        self.assertEqual(wire.reply_parameters(reader.next_message()), {"a": 1})
        self.assertIsNone(reader.next_message())
        reader.feed(b"}\0")
        with self.assertRaises(widgetd.Wiped):
            wire.reply_parameters(reader.next_message())


if __name__ == "__main__":
    unittest.main()
