"""Actions and the widget stream against a real daemon (DESIGN §13, §5): a host
performs, a provider watches, held actions wait for the unlock, errors are typed."""

from __future__ import annotations

import asyncio
import threading
import unittest
from typing import Any, Dict, List, Optional

import widgetd
import widgetd.aio

from . import fixtures as fx
from .daemon import DaemonFixture

PASSCODE = "1234"
MEDIA = "com.example.clock/media"  # class none: shown while locked
WEATHER = "com.example.weather/forecast"  # class C: shown once unlocked since start


def action(id: str, policy: str, is_on: Optional[bool] = None) -> Dict[str, Any]:
    """An action of the provider's own, a toggle when ``is_on`` is given."""
    made: Dict[str, Any] = {"id": id, "title": id.capitalize(), "authentication": policy,
                            "kind": "button" if is_on is None else "toggle"}
    if is_on is not None:
        made["isOn"] = is_on
    return made


def timeline(actions: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """One current entry drawn from roles, with ``actions``."""
    return [{
        "date": fx.now(),
        "fields": {"title": {"value": "Radio", "role": "title"}, "level": {"value": 0.5, "role": "gauge"}},
        "actions": actions,
    }]


class ActionTests(DaemonFixture, unittest.TestCase):
    """One daemon with a passcode; every test leaves it unlocked."""

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        with widgetd.Client(cls.daemon.socket) as c:
            c.set_passcode(new=PASSCODE)

    def setUp(self) -> None:
        self.client = widgetd.Client(self.daemon.socket)
        self.addCleanup(self.client.close)
        self.client.put_timeline(MEDIA, timeline([action("play", "alwaysAllowed", False), action("open", "requiresAuthentication")]),
                                 policy="never")
        self.client.put_timeline(WEATHER, timeline([action("open", "requiresAuthentication")]), policy="never")

    def tearDown(self) -> None:
        self.client.unlock(PASSCODE)

    def watching(self, provider: Optional[str] = None) -> widgetd.Stream:
        """A provider's action stream that the daemon has read: until it has, a
        perform is ProviderUnavailable, so the first perform is retried, each try a
        round trip, no sleep."""
        stream = self.client.watch_actions(provider)
        self.addCleanup(stream.close)
        return stream

    def perform_once_watched(self, widget: str, surface: str, id: str) -> str:
        for _ in range(1000):
            try:
                return self.client.perform_action(widget, surface, id)
            except widgetd.ProviderUnavailable:
                continue
        self.fail("the daemon never read the WatchActions call")

    def test_a_toggle_is_delivered_while_locked_with_its_new_state(self) -> None:
        stream = self.watching("com.example.clock")
        self.client.lock()
        self.assertEqual(self.perform_once_watched(MEDIA, "lockScreen", "play"), "delivered")
        delivery = next(stream)
        self.assertEqual({k: delivery[k] for k in ("widget", "action", "isOn", "surface", "whileLocked")},
                         {"widget": MEDIA, "action": "play", "isOn": True, "surface": "lockScreen", "whileLocked": True})
        self.assertIsInstance(delivery["id"], int)

    def test_an_action_that_needs_an_unlock_is_held_then_delivered_by_the_unlock(self) -> None:
        stream = self.watching()
        self.perform_once_watched(MEDIA, "homeScreen", "play")  # unlocked: the watch is read
        self.assertEqual(next(stream)["action"], "play")
        self.client.lock()
        self.assertEqual(self.client.perform_action(MEDIA, "lockScreen", "open"), "held")

        outcome: List[str] = []

        def wait_for_it() -> None:
            with widgetd.Client(self.daemon.socket) as host:
                outcome.append(host.perform_action(MEDIA, "lockScreen", "open", wait=True))

        waiter = threading.Thread(target=wait_for_it)
        waiter.start()
        # Held or not yet read when the unlock comes, the waiting call ends "delivered".
        self.client.unlock(PASSCODE)
        waiter.join(60)
        self.assertEqual(outcome, ["delivered"])
        received = next(stream)
        self.assertEqual((received["widget"], received["action"], received.get("isOn")), (MEDIA, "open", None))

    def test_a_held_action_waited_for_expires_when_the_device_locks_again(self) -> None:
        self.watching()
        self.client.lock()
        replies = widgetd.Stream(self.client.socket_path, widgetd._protocol.perform_action(MEDIA, "lockScreen", "open"))
        self.addCleanup(replies.close)
        self.assertEqual(next(replies), "held")
        self.client.lock()
        self.assertEqual(next(replies), "expired")

    def test_an_action_the_surface_does_not_show_is_action_not_available(self) -> None:
        self.watching()
        with self.assertRaises(widgetd.ActionNotAvailable) as caught:
            self.perform_once_watched(MEDIA, "homeScreen", "rewind")
        self.assertEqual(caught.exception.action, "rewind")
        self.assertEqual(caught.exception.name, "io.widgetd.ActionNotAvailable")

    def test_no_watching_provider_is_provider_unavailable(self) -> None:
        with self.assertRaises(widgetd.ProviderUnavailable) as caught:
            self.client.perform_action(WEATHER, "homeScreen", "open")
        self.assertEqual(caught.exception.provider, "com.example.weather")

    def test_watch_widgets_tells_of_an_added_and_a_removed_widget(self) -> None:
        widget = "com.example.clock/added"
        seen: List[Dict[str, Any]] = []
        with self.client.watch_widgets() as events:
            # The stream sends nothing first, and the daemon reads the watch when it
            # reads it: a writer stores and deletes the widget until it is seen.
            done = threading.Event()

            def churn() -> None:
                with widgetd.Client(self.daemon.socket) as writer:
                    while not done.is_set():
                        writer.put_timeline(widget, timeline([]), policy="never")
                        writer.delete_timeline(widget)

            writer = threading.Thread(target=churn)
            writer.start()
            try:
                for event in events:
                    if event["widget"]["widget"] == widget:
                        seen.append(event)
                    if len(seen) >= 3:
                        break
            finally:
                done.set()
                writer.join(60)
        kinds = [event["event"] for event in seen]
        # Whichever came first, they alternate: added, removed, added...
        self.assertIn(kinds, (["added", "removed", "added"], ["removed", "added", "removed"]))
        self.assertEqual(seen[0]["widget"]["provider"], "com.example.clock")
        self.assertEqual(seen[0]["widget"]["class"], "none")


class AioActionTests(DaemonFixture, unittest.IsolatedAsyncioTestCase):
    """The asyncio client: the same calls, the same typed errors."""

    async def test_perform_watch_and_typed_errors(self) -> None:
        c = widgetd.aio.Client(self.daemon.socket)
        self.addAsyncCleanup(c.close)
        await c.put_timeline(MEDIA, timeline([action("play", "alwaysAllowed", True)]), policy="never")
        stream = c.watch_actions("com.example.clock")
        self.addAsyncCleanup(stream.aclose)
        first = asyncio.ensure_future(stream.__anext__())
        with self.assertRaises(widgetd.ActionNotAvailable) as caught:
            await c.perform_action(MEDIA, "homeScreen", "stop")
        self.assertEqual(caught.exception.action, "stop")
        for _ in range(1000):
            try:
                outcome = await c.perform_action(MEDIA, "homeScreen", "play", wait=True)
                break
            except widgetd.ProviderUnavailable as unavailable:
                self.assertEqual(unavailable.provider, "com.example.clock")
                await asyncio.sleep(0)
        self.assertEqual(outcome, "delivered")
        delivery = await asyncio.wait_for(first, 60)
        self.assertEqual((delivery["action"], delivery["isOn"], delivery["whileLocked"]), ("play", False, False))

        widgets = c.watch_widgets()
        self.addAsyncCleanup(widgets.aclose)
        pending = asyncio.ensure_future(widgets.__anext__())
        # Stored and deleted until the daemon, having read the watch, tells of it.
        while not pending.done():
            await c.put_timeline("com.example.clock/other", timeline([]), policy="never")
            await c.delete_timeline("com.example.clock/other")
        event = pending.result()
        self.assertIn(event["event"], ("added", "removed"))
        self.assertEqual(event["widget"]["widget"], "com.example.clock/other")


if __name__ == "__main__":
    unittest.main()
