"""Both clients against a server that lies or stalls (tests/hostile.py): every call
ends, in bounded time and memory, with a widgetd.Error."""

from __future__ import annotations

import asyncio
import time
import unittest
from typing import Any, Callable, Dict, List, Optional

import widgetd
import widgetd.aio
from widgetd import _protocol as wire

from .hostile import HostileServer, Peer

#: What a hostile server gives up after, so that a client without a bound fails the
#: test instead of running until the machine runs out of memory.
GIVE_UP_AFTER_PAGES = 1000


def widget_info(page: int, index: int) -> Dict[str, Any]:
    widget = "com.example.p%d/w%d" % (page, index)
    return {"widget": widget, "provider": "com.example.p%d" % page, "kind": "w%d" % index,
            "family": "systemSmall", "class": "none", "generation": 1}


def pages(make_page: Callable[[int, Optional[str]], Dict[str, Any]], served: List[int]) -> Callable[[Peer], None]:
    """A server answering each ListWidgets with ``make_page(n, after)``, counting pages."""

    def serve(peer: Peer) -> None:
        for n in range(GIVE_UP_AFTER_PAGES):
            after = peer.request()["parameters"].get("after")
            served.append(n)
            peer.reply(make_page(n, after))

    return serve


def full_pages_forever(n: int, after: Optional[str]) -> Dict[str, Any]:
    widgets = [widget_info(n, i) for i in range(wire.LIST_PAGE)]
    return {"widgets": widgets, "next": widgets[-1]["widget"]}


def empty_pages_forever(n: int, after: Optional[str]) -> Dict[str, Any]:
    return {"widgets": [], "next": "com.example.p%09d/w" % n}


def next_that_does_not_advance(n: int, after: Optional[str]) -> Dict[str, Any]:
    return {"widgets": [widget_info(0, 0)], "next": widget_info(0, 0)["widget"]}


def page_longer_than_asked(n: int, after: Optional[str]) -> Dict[str, Any]:
    return {"widgets": [widget_info(n, i) for i in range(wire.LIST_PAGE + 1)]}


def page_of_huge_widgets(n: int, after: Optional[str]) -> Dict[str, Any]:
    widgets = [dict(widget_info(n, i), kind="k" * 8192) for i in range(wire.LIST_PAGE)]
    return {"widgets": widgets, "next": widgets[-1]["widget"]}


#: (what the server does, the error list_widgets raises, the most pages it may read).
LIST_CASES = [
    (full_pages_forever, widgetd.TooLarge, widgetd.MAX_LIST_WIDGETS // wire.LIST_PAGE),
    (empty_pages_forever, widgetd.TooLarge, widgetd.MAX_LIST_WIDGETS // wire.LIST_PAGE),
    (next_that_does_not_advance, widgetd.MalformedReply, 2),
    (page_longer_than_asked, widgetd.MalformedReply, 1),
    (page_of_huge_widgets, widgetd.MalformedReply, 1),
]

DEEP = 100_000

#: (a reply, the method called): each must raise widgetd.MalformedReply.
MALFORMED_CASES = [
    (b'{"parameters":{"state":' + b"[" * DEEP + b"]" * DEEP + b"}}\0", "status"),
    (b'{"error":"io.widgetd.WidgetNotFound","parameters":{"widget":' + b"{\"a\":" * DEEP + b"1" + b"}" * DEEP + b"}}\0",
     "status"),
    (b'{"parameters":{"widgets":5}}\0', "list_widgets"),
    (b'{"parameters":{"widgets":[1,2]}}\0', "list_widgets"),
    (b'{"parameters":{"widgets":[],"next":7}}\0', "list_widgets"),
    (b'{"parameters":{"widgets":[' + b"[" * DEEP + b"]" * DEEP + b"]}}\0", "list_widgets"),
    (b'{"parameters":"\xff"}\0', "status"),
    (b"[1]\0", "status"),
]


def answer_once_with(reply: bytes) -> Callable[[Peer], None]:
    def serve(peer: Peer) -> None:
        peer.request()
        peer.send(reply)
        peer.request()

    return serve


#: A GetStatus reply a trickling server sends a byte at a time.
TRICKLED = b'{"parameters":{"state":"locked","passcodeSet":true,"failedAttempts":0}}\0'
TRICKLE_INTERVAL = 0.2


def trickle(peer: Peer) -> None:
    peer.request()
    for byte in TRICKLED:
        peer.send(bytes([byte]))
        time.sleep(TRICKLE_INTERVAL)


class HostileServerTests(unittest.TestCase):
    def test_list_widgets_reads_a_bounded_number_of_pages(self) -> None:
        for make_page, error, most_pages in LIST_CASES:
            with self.subTest(server=make_page.__name__):
                served: List[int] = []
                with HostileServer(pages(make_page, served)) as server, widgetd.Client(server.path) as c:
                    with self.assertRaises(error) as caught:
                        c.list_widgets()
                    self.assertLessEqual(len(served), most_pages)
                    if error is widgetd.TooLarge:
                        self.assertEqual(caught.exception.limit, widgetd.MAX_LIST_WIDGETS)

    def test_list_widgets_takes_a_smaller_bound(self) -> None:
        served: List[int] = []
        with HostileServer(pages(full_pages_forever, served)) as server, widgetd.Client(server.path) as c:
            with self.assertRaises(widgetd.TooLarge) as caught:
                c.list_widgets(max_widgets=1200)
            self.assertEqual(caught.exception.limit, 1200)
            self.assertEqual(len(served), 3)

    def test_the_timeout_bounds_the_whole_call_not_each_read(self) -> None:
        with HostileServer(trickle) as server, widgetd.Client(server.path, timeout=1.0) as c:
            started = time.monotonic()
            with self.assertRaises(widgetd.DaemonUnavailable) as caught:
                c.status()
            elapsed = time.monotonic() - started
            # The whole reply would take len(TRICKLED) * 0.2 s, over 14 s.
            self.assertLess(elapsed, 5.0)
            self.assertEqual(caught.exception.parameters["reason"], "timed out")

    def test_every_reply_that_cannot_be_read_raises_malformed_reply(self) -> None:
        for reply, method in MALFORMED_CASES:
            with self.subTest(reply=reply[:40], method=method):
                with HostileServer(answer_once_with(reply)) as server, widgetd.Client(server.path) as c:
                    with self.assertRaises(widgetd.MalformedReply) as caught:
                        getattr(c, method)()
                    self.assertIsInstance(caught.exception, widgetd.Error)
                    self.assertEqual(caught.exception.name, "widgetd.MalformedReply")


class AioHostileServerTests(unittest.IsolatedAsyncioTestCase):
    async def test_list_widgets_reads_a_bounded_number_of_pages(self) -> None:
        for make_page, error, most_pages in LIST_CASES:
            with self.subTest(server=make_page.__name__):
                served: List[int] = []
                with HostileServer(pages(make_page, served)) as server:
                    async with widgetd.aio.Client(server.path) as c:
                        with self.assertRaises(error):
                            await c.list_widgets()
                    self.assertLessEqual(len(served), most_pages)

    async def test_the_timeout_bounds_the_whole_call(self) -> None:
        with HostileServer(trickle) as server:
            async with widgetd.aio.Client(server.path, timeout=1.0) as c:
                started = time.monotonic()
                with self.assertRaises(asyncio.TimeoutError):
                    await c.status()
                self.assertLess(time.monotonic() - started, 5.0)

    async def test_every_reply_that_cannot_be_read_raises_malformed_reply(self) -> None:
        for reply, method in MALFORMED_CASES:
            with self.subTest(reply=reply[:40], method=method):
                with HostileServer(answer_once_with(reply)) as server:
                    async with widgetd.aio.Client(server.path) as c:
                        with self.assertRaises(widgetd.MalformedReply):
                            await getattr(c, method)()


if __name__ == "__main__":
    unittest.main()
