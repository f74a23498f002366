"""widgetd.aio.Client against a real daemon: the same rules as test_client, in asyncio."""

from __future__ import annotations

import asyncio
import os
import unittest

import widgetd
import widgetd.aio

from . import fixtures as fx
from .daemon import Daemon, DaemonFixture

PASSCODE = "1234"
MAIL = "com.example.mail/inbox#lock-1"
WEATHER = "com.example.weather/forecast"


class AioClientTests(DaemonFixture, unittest.IsolatedAsyncioTestCase):
    """One daemon with a passcode; every test leaves it unlocked."""

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        with widgetd.Client(cls.daemon.socket) as c:
            c.set_passcode(new=PASSCODE)

    async def asyncSetUp(self) -> None:
        self.client = widgetd.aio.Client(self.daemon.socket)

    async def asyncTearDown(self) -> None:
        await self.client.close()

    async def test_put_get_append_list_and_delete_a_timeline(self) -> None:
        c = self.client
        self.assertEqual(await c.put_timeline(WEATHER, fx.entries(), policy="never", placeholder=fx.PLACEHOLDER), 1)
        self.assertEqual((await c.get_timeline(WEATHER))["entries"][0]["fields"]["temperature"], {"value": 7})
        later = fx.entries(temperature=9)
        later[0]["date"] = fx.now()
        self.assertEqual(await c.append_entries(WEATHER, later), 2)
        self.assertIn(WEATHER, [w["widget"] for w in await c.list_widgets()])
        await c.close_timeline(WEATHER)
        await c.delete_timeline(WEATHER)
        with self.assertRaises(widgetd.WidgetNotFound) as caught:
            await c.get_timeline(WEATHER)
        self.assertEqual(caught.exception.widget, WEATHER)
        self.assertEqual((await c.status())["state"], "unlocked")
        self.assertIn("lockScreenWidgetsAccess", await c.settings())
        self.assertEqual((await c.set_settings(lock_screen_widgets_access=True))["lockScreenWidgetsAccess"], True)

    async def test_watch_goes_content_placeholder_content_across_lock_and_unlock(self) -> None:
        c = self.client
        await c.put_timeline(MAIL, fx.entries(secret="from Alice"), policy="never", placeholder=fx.PLACEHOLDER)
        async with c.watch(MAIL, "lockScreen") as stream:
            first = await stream.__anext__()
            self.assertEqual((first["mode"], fx.values(first)["home"]), ("content", "from Alice"))
            await c.lock()
            try:
                locked = await stream.__anext__()
                self.assertEqual(locked["mode"], "placeholder")
                self.assertEqual(fx.values(locked)["home"], "Address")
            finally:
                await c.unlock(PASSCODE)
            again = await stream.__anext__()
            self.assertEqual((again["mode"], fx.values(again)["home"]), ("content", "from Alice"))
        self.assertEqual((await c.get_presentation(MAIL, "lock-screen"))["mode"], "content")

    async def test_async_for_ends_when_the_stream_is_closed(self) -> None:
        c = self.client
        await c.put_timeline(MAIL, fx.entries(), policy="never", placeholder=fx.PLACEHOLDER)
        stream = c.watch(MAIL, "homeScreen")
        modes = []
        async for presentation in stream:
            modes.append(presentation["mode"])
            await stream.aclose()
        self.assertEqual(modes, ["content"])

    async def test_cancelling_a_watch_closes_its_connection(self) -> None:
        c = self.client
        await c.put_timeline(MAIL, fx.entries(), policy="never", placeholder=fx.PLACEHOLDER)
        stream = c.watch(MAIL, "homeScreen")
        await stream.__anext__()
        waiting = asyncio.ensure_future(stream.__anext__())
        await asyncio.sleep(0)  # let it start waiting for the next presentation
        waiting.cancel()
        with self.assertRaises(asyncio.CancelledError):
            await waiting
        with self.assertRaises(StopAsyncIteration):
            await stream.__anext__()
        self.assertEqual((await c.status())["state"], "unlocked")

    async def test_watch_reloads_hears_a_request_and_the_provider_answers_it(self) -> None:
        c = self.client
        await c.put_timeline(WEATHER, fx.entries(), policy="never")
        stream = c.watch_reloads()
        self.addAsyncCleanup(stream.aclose)

        async def requested() -> dict:
            async for request in stream:
                if request == {"widget": WEATHER, "reason": "requested"}:
                    return request
            raise AssertionError("the stream ended")

        listening = asyncio.ensure_future(requested())
        # A stream call has no first reply: ask until the stream hears the request.
        for _ in range(30):
            await c.reload_timelines(kind="forecast")
            done, _ = await asyncio.wait({listening}, timeout=1)
            if done:
                break
        request = listening.result()
        generation = await c.put_timeline(request["widget"], fx.entries(temperature=3), policy="never")
        self.assertEqual((await c.get_timeline(WEATHER))["generation"], generation)

    async def test_monitor_reports_lock_and_unlock(self) -> None:
        c = self.client
        async with c.monitor() as events:
            self.assertEqual((await events.__anext__())["state"], "unlocked")
            await c.lock()
            try:
                self.assertEqual((await events.__anext__())["state"], "locked")
            finally:
                await c.unlock(PASSCODE)
            self.assertEqual((await events.__anext__())["state"], "unlocked")

    async def test_errors_carry_their_parameters(self) -> None:
        c = self.client
        with self.assertRaises(widgetd.InvalidTimeline) as invalid:
            await c.put_timeline(WEATHER, [{"date": "yesterday", "fields": {}}])
        self.assertIn("entries[0].date", invalid.exception.reason)
        await c.put_timeline("com.example.tiny/one", fx.entries(), policy="never")
        with self.assertRaises(widgetd.TooLarge) as large:
            await c.put_timeline("com.example.tiny/two", fx.entries(), policy="never")
        self.assertEqual(large.exception.limit, 1)
        with self.assertRaises(widgetd.ProviderNotRegistered):
            await c.put_timeline("com.example.nobody/x", fx.entries())

    async def test_concurrent_calls_take_turns_on_one_connection(self) -> None:
        c = self.client
        results = await asyncio.gather(*(c.status() for _ in range(20)))
        self.assertEqual({r["state"] for r in results}, {"unlocked"})


class AioPasscodeAttemptsTests(DaemonFixture, unittest.IsolatedAsyncioTestCase):
    """Wrong passcodes, on a daemon of their own."""

    async def test_wrong_passcodes_count_then_try_again_later(self) -> None:
        c = widgetd.aio.Client(self.daemon.socket)
        try:
            await c.set_passcode(new=PASSCODE)
            await c.lock()
            for attempt in range(1, 6):
                with self.assertRaises(widgetd.WrongPasscode) as caught:
                    await c.unlock(b"wrong-%d" % attempt)
                self.assertEqual(caught.exception.failed_attempts, attempt)
            self.assertGreater(caught.exception.retry_after, 0)
            with self.assertRaises(widgetd.TryAgainLater) as later:
                await c.unlock(PASSCODE)
            self.assertGreater(later.exception.retry_after, 0)
            self.assertLessEqual(later.exception.retry_after, 60)
        finally:
            await c.close()


class AioDaemonUnavailableTests(unittest.IsolatedAsyncioTestCase):
    """No daemon, and a daemon that stops."""

    async def test_a_missing_socket_is_daemon_unavailable(self) -> None:
        path = os.path.join(os.path.dirname(__file__), "no-such-daemon.sock")
        with self.assertRaises(widgetd.DaemonUnavailable):
            await widgetd.aio.Client(path).status()
        with self.assertRaises(widgetd.DaemonUnavailable):
            await widgetd.aio.Client(path).watch(WEATHER, "homeScreen").__anext__()

    async def test_a_stopped_daemon_ends_streams(self) -> None:
        daemon = Daemon()
        self.addCleanup(daemon.remove)
        await asyncio.get_running_loop().run_in_executor(None, daemon.start)
        c = widgetd.aio.Client(daemon.socket)
        events = c.monitor()
        await events.__anext__()
        loop = asyncio.get_running_loop()
        # Starting and stopping block: off the loop, as any blocking call should be.
        await loop.run_in_executor(None, daemon.stop)
        with self.assertRaises(widgetd.DaemonUnavailable):
            await events.__anext__()
        await loop.run_in_executor(None, daemon.start)
        self.assertIn((await c.status())["state"], ("unlocked", "beforeFirstUnlock"))
        await c.close()


if __name__ == "__main__":
    unittest.main()
