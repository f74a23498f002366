"""widgetd.Provider and widgetd.aio.Provider against a real daemon: a provider names
itself, answers its own reload requests, writes on its own schedule and on update(),
and outlives widgetd restarting."""

from __future__ import annotations

import asyncio
import queue
import threading
import unittest
from datetime import datetime, timezone
from typing import Any, Dict, List, Tuple

import widgetd
import widgetd.aio
from widgetd import _provider

from .daemon import Daemon

CLOCK = "com.example.clock/world"
MAIL = "com.example.mail/inbox"
#: How long a test waits for something the daemon or the helper surely does; only a
#: failure ever waits this long.
PATIENCE = 60


def timeline(widget: str, reason: str) -> Dict[str, Any]:
    return {
        "entries": [{"date": datetime.now(timezone.utc), "fields": {"reason": {"value": reason}}}],
        "policy": "never",
        "placeholder": {"fields": {"reason": {"value": "", "privacy": "public"}}},
    }


class PureTests(unittest.TestCase):
    def test_widgets_must_be_the_providers(self) -> None:
        self.assertEqual(_provider.checked_widgets("com.example.clock", [CLOCK, CLOCK]), (CLOCK,))
        for provider, widgets in (("com.example.clock", [MAIL]), ("com.example.clock", []), ("a/b", ["a/b/c"])):
            with self.assertRaises(ValueError):
                _provider.checked_widgets(provider, widgets)

    def test_backoff_doubles_to_its_longest_and_resets(self) -> None:
        backoff = _provider.Backoff(1, 5)
        self.assertEqual([backoff.take() for _ in range(5)], [1, 2, 4, 5, 5])
        self.assertEqual(backoff.take(at_least=9), 9)
        backoff.reset()
        self.assertEqual(backoff.take(), 1)

    def test_a_timeline_must_be_a_dict_with_entries(self) -> None:
        with self.assertRaises(TypeError):
            _provider.put_arguments(CLOCK, [])
        with self.assertRaises(TypeError):
            _provider.put_arguments(CLOCK, {"entries": [], "polcy": "never"})
        self.assertEqual(_provider.put_arguments(CLOCK, {"entries": []})["policy"], None)


class ProviderTests(unittest.TestCase):
    def setUp(self) -> None:
        self.daemon = Daemon()
        self.addCleanup(self.daemon.remove)
        self.daemon.start()
        self.client = widgetd.Client(self.daemon.socket)
        self.addCleanup(self.client.close)
        # Another app's widget, which the clock must never rewrite.
        self.mail = self.client.put_timeline(MAIL, timeline(MAIL, "mail")["entries"], policy="never")
        self.writes: "queue.Queue[Tuple[str, str, int]]" = queue.Queue()

    def next_write(self) -> Tuple[str, str, int]:
        return self.writes.get(timeout=PATIENCE)

    def writes_until(self, reason: str) -> List[Tuple[str, str, int]]:
        seen = [self.next_write()]
        while seen[-1][1] != reason:
            seen.append(self.next_write())
        return seen

    def start(self, **options: Any) -> widgetd.Provider:
        provider = widgetd.Provider(
            "com.example.clock", [CLOCK], timeline, socket=self.daemon.socket, backoff=(0.05, 0.2),
            on_write=lambda *write: self.writes.put(write), **options)
        failures: List[BaseException] = []

        def run() -> None:
            try:
                provider.run()
            except BaseException as error:  # reported by the test
                failures.append(error)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()

        def stop() -> None:
            provider.stop()
            thread.join(PATIENCE)
            self.assertFalse(thread.is_alive())
            self.assertEqual(failures, [])

        self.addCleanup(stop)
        return provider

    def test_watch_reloads_naming_a_provider_hears_only_its_widgets(self) -> None:
        other = "com.example.clock/other"
        for widget in (CLOCK, other):
            self.client.put_timeline(widget, timeline(widget, "x")["entries"], policy="never")
        heard: "queue.Queue[str]" = queue.Queue()
        stream = self.client.watch_reloads("com.example.clock")
        self.addCleanup(stream.close)

        def read() -> None:
            try:
                for request in stream:
                    heard.put(request["widget"])
            except widgetd.DaemonUnavailable:
                pass

        threading.Thread(target=read, daemon=True).start()
        # WatchReloads has no first reply: ask (for clock/world) until it is surely there.
        while True:
            self.client.reload_timelines("com.example.clock", "world")
            try:
                if heard.get(timeout=0.5) == CLOCK:
                    break
            except queue.Empty:
                continue
        # Every provider's widgets, then clock/other again: all heard up to the second
        # clock/other are the clock's (the mail's would come between the two).
        self.client.reload_timelines()
        self.client.reload_timelines("com.example.clock", "other")
        seen: List[str] = []
        while seen.count(other) < 2:
            seen.append(heard.get(timeout=PATIENCE))
        self.assertEqual({widget.split("/")[0] for widget in seen}, {"com.example.clock"})

    def test_it_answers_its_own_requests_and_never_another_apps(self) -> None:
        provider = self.start()
        self.assertEqual(self.next_write()[:2], (CLOCK, "start"))
        self.client.reload_timelines()
        self.assertEqual(self.writes_until("requested")[-1][0], CLOCK)
        self.assertEqual(self.client.get_timeline(MAIL)["generation"], self.mail)
        provider.update()
        self.assertEqual(self.writes_until("update")[-1][0], CLOCK)

    def test_it_writes_on_its_own_schedule(self) -> None:
        self.start(every=0.05)
        self.assertEqual(self.next_write()[1], "start")
        self.assertEqual(self.writes_until("scheduled")[-1][0], CLOCK)

    def test_it_reconnects_after_a_restart_and_rewrites_its_widgets(self) -> None:
        self.start()
        first = self.next_write()
        self.assertEqual(first[1], "start")
        self.daemon.stop()
        self.daemon.start()
        widget, reason, generation = self.writes_until("start")[-1]
        self.assertEqual(widget, CLOCK)
        self.assertGreater(generation, first[2])
        self.assertEqual(self.client.get_timeline(CLOCK)["generation"], generation)
        # And it answers the new daemon's requests.
        self.client.reload_timelines("com.example.clock")
        self.writes_until("requested")

    def test_a_provider_it_may_not_provide_ends_run(self) -> None:
        provider = widgetd.Provider("com.example.nothing", ["com.example.nothing/w"], timeline, socket=self.daemon.socket)
        with self.assertRaises(widgetd.Error):
            provider.run()


class AioProviderTests(unittest.IsolatedAsyncioTestCase):
    def setUp(self) -> None:
        self.daemon = Daemon()
        self.addCleanup(self.daemon.remove)
        self.daemon.start()

    async def test_it_answers_reloads_updates_and_a_restart(self) -> None:
        writes: "asyncio.Queue[Tuple[str, str, int]]" = asyncio.Queue()

        async def coroutine_timeline(widget: str, reason: str) -> Dict[str, Any]:
            return timeline(widget, reason)

        provider = widgetd.aio.Provider(
            "com.example.clock", [CLOCK], coroutine_timeline, socket=self.daemon.socket, backoff=(0.05, 0.2),
            on_write=lambda *write: writes.put_nowait(write))
        running = asyncio.ensure_future(provider.run())

        async def until(reason: str) -> Tuple[str, str, int]:
            while True:
                write = await asyncio.wait_for(writes.get(), PATIENCE)
                if write[1] == reason:
                    return write

        try:
            async with widgetd.aio.Client(self.daemon.socket) as c:
                mail = await c.put_timeline(MAIL, timeline(MAIL, "mail")["entries"], policy="never")
                first = await until("start")
                await c.reload_timelines()
                self.assertEqual((await until("requested"))[0], CLOCK)
                self.assertEqual((await c.get_timeline(MAIL))["generation"], mail)
                provider.update(CLOCK)
                await until("update")
                await asyncio.get_running_loop().run_in_executor(None, self.daemon.stop)
                await asyncio.get_running_loop().run_in_executor(None, self.daemon.start)
                self.assertGreater((await until("start"))[2], first[2])
            provider.stop()
            await asyncio.wait_for(running, PATIENCE)
        finally:
            running.cancel()


if __name__ == "__main__":
    unittest.main()
