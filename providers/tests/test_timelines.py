"""The three timelines as pure functions of what a source said, and text cleaning."""

from __future__ import annotations

import datetime as _dt
import json
import unittest

from widgetd_providers import calendar, media, power
from widgetd_providers.text import MAX_INPUT, clean, clean_icon

UTC = _dt.timezone.utc
NOW = _dt.datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def at(hour: int, minute: int = 0, day: int = 2) -> _dt.datetime:
    return _dt.datetime(2026, 3, day, hour, minute, tzinfo=UTC)


class TextTests(unittest.TestCase):
    def test_control_and_bidirectional_characters_are_removed(self) -> None:
        cleaned = clean("Pay\u202eroll\x07 \u2066meeting\u2069\x1b[31m")
        self.assertEqual(cleaned.value, "Payroll meeting[31m")
        self.assertEqual(cleaned.problem, "control or bidirectional characters removed")

    def test_a_ten_megabyte_title_is_cut_unread(self) -> None:
        cleaned = clean("a" * 10_000_000)
        self.assertEqual(len(cleaned.value), 120)
        self.assertTrue(cleaned.value.endswith("\u2026"))
        self.assertEqual(cleaned.problem, "too long")

    def test_input_past_max_input_is_not_looked_at(self) -> None:
        self.assertEqual(clean("b" * MAX_INPUT + "\x07" * 100, limit=10_000).value, "b" * MAX_INPUT)

    def test_values_of_the_wrong_type_are_left_out(self) -> None:
        for value in (42, 4.2, ["a"], {"a": 1}, b"bytes", True):
            with self.subTest(value=value):
                cleaned = clean(value)
                self.assertIsNone(cleaned.value)
                self.assertIn("not text", cleaned.problem)

    def test_nothing_left_is_left_out(self) -> None:
        self.assertEqual(clean("\u202e\x00 \t"), (None, "control or bidirectional characters removed"))
        self.assertEqual(clean(None), (None, None))

    def test_white_space_collapses_and_joiners_stay(self) -> None:
        self.assertEqual(clean("  a \n\t b  ").value, "a b")
        self.assertEqual(clean("\U0001F469\u200d\U0001F4BB").value, "\U0001F469\u200d\U0001F4BB")

    def test_icon_names_are_those_widgetd_takes(self) -> None:
        self.assertEqual(clean_icon("battery-good-symbolic"), "battery-good-symbolic")
        for bad in ("../x", "Battery", "a" * 65, "", 3, None, "/usr/share/icons/x.png"):
            self.assertIsNone(clean_icon(bad))


class PowerTests(unittest.TestCase):
    def battery(self, **values: object) -> power.Battery:
        base = dict(present=True, percentage=80.0, state=2, icon="battery-full-symbolic", kind=2, model="")
        base.update(values)
        return power.Battery(**base)  # type: ignore[arg-type]

    def test_the_display_device_is_a_public_gauge_with_state_and_icon(self) -> None:
        timeline = power.timeline(self.battery(), [], NOW)
        (entry,) = timeline["entries"]
        fields = entry["fields"]
        self.assertEqual(fields["gauge"], {"value": 0.8, "privacy": "public", "role": "gauge", "range": [0, 1]})
        self.assertEqual(fields["level"]["value"], "80 %")
        self.assertEqual(fields["state"]["value"], "discharging")
        self.assertEqual(fields["icon"]["value"], "battery-full-symbolic")
        self.assertTrue(all(f["privacy"] == "public" for f in fields.values()))
        self.assertEqual(timeline["policy"], {"kind": "never"})

    def test_no_battery_is_the_placeholder(self) -> None:
        for display in (None, self.battery(present=False)):
            timeline = power.timeline(display, [], NOW)
            self.assertEqual(timeline["entries"], [])
            self.assertEqual(timeline["placeholder"], power.placeholder())

    def test_a_battery_without_percentage_shows_its_state_alone(self) -> None:
        problems: list = []
        for percentage in (None, "80", float("nan"), 250.0, True):
            with self.subTest(percentage=percentage):
                fields = power.fields(self.battery(percentage=percentage), [], problems)
                self.assertNotIn("gauge", fields)
                self.assertNotIn("level", fields)
                self.assertEqual(fields["state"]["value"], "discharging")
        self.assertIn("percentage", problems)

    def test_wrong_types_are_left_out_and_named(self) -> None:
        problems: list = []
        fields = power.fields(self.battery(state="charging", icon="../../etc/passwd"), [], problems)
        self.assertNotIn("state", fields)
        self.assertEqual(fields["icon"]["value"], "battery-missing-symbolic")
        self.assertEqual(problems, ["state", "icon"])

    def test_peripherals_are_details(self) -> None:
        headset = self.battery(kind=17, percentage=40.0, model="WH-1000\u202eXM4")
        pen = self.battery(kind=13, percentage=None, model="Pen")
        problems: list = []
        fields = power.fields(self.battery(), [headset, pen], problems)
        self.assertEqual(fields["peripheral1"], {"value": "WH-1000XM4 40 %", "privacy": "public", "role": "detail"})
        self.assertNotIn("peripheral2", fields)
        self.assertEqual(problems, ["peripheral percentage"])


class MediaTests(unittest.TestCase):
    def player(self, **values: object) -> media.Player:
        base = dict(status="Playing", metadata={"xesam:title": "A Song", "xesam:artist": ["Someone"],
                                                "mpris:length": 200_000_000},
                    position=20_000_000, rate=1.0, can_next=True, can_previous=True, can_control=True)
        base.update(values)
        return media.Player(**base)  # type: ignore[arg-type]

    def test_title_and_artist_are_sensitive_state_and_gauge_public(self) -> None:
        state = media.shown(self.player(), [])
        first = media.timeline(state, NOW)["entries"][0]
        fields = first["fields"]
        self.assertEqual(fields["title"], {"value": "A Song", "privacy": "sensitive", "role": "title"})
        self.assertEqual(fields["artist"], {"value": "Someone", "privacy": "sensitive", "role": "detail"})
        self.assertEqual(fields["state"]["privacy"], "public")
        self.assertEqual(fields["position"], {"value": 0.1, "privacy": "public", "role": "gauge", "range": [0, 1]})

    def test_play_pause_is_a_toggle_on_while_playing_next_previous_buttons_always_allowed(self) -> None:
        for status, on in (("Playing", True), ("Paused", False)):
            actions = media.timeline(media.shown(self.player(status=status), []), NOW)["entries"][0]["actions"]
            self.assertEqual([(a["id"], a["kind"]) for a in actions],
                             [("playPause", "toggle"), ("previous", "button"), ("next", "button")])
            self.assertIs(actions[0]["isOn"], on)
            self.assertTrue(all(a["authentication"] == "alwaysAllowed" for a in actions))

    def test_playing_foresees_the_gauge_in_steps_to_the_end(self) -> None:
        entries = media.timeline(media.shown(self.player(), []), NOW)["entries"]
        dates = [e["date"] for e in entries]
        self.assertEqual(dates, sorted(dates))
        self.assertEqual(dates[0], NOW)
        self.assertEqual(dates[-1], NOW + _dt.timedelta(seconds=180))
        self.assertEqual(entries[-1]["fields"]["position"]["value"], 1.0)
        self.assertLessEqual(len(entries), media.MAX_STEPS + 2)

    def test_paused_is_one_entry(self) -> None:
        self.assertEqual(len(media.timeline(media.shown(self.player(status="Paused"), []), NOW)["entries"]), 1)

    def test_metadata_of_the_wrong_types_is_left_out(self) -> None:
        problems: list = []
        state = media.shown(self.player(metadata={"xesam:title": 7, "xesam:artist": 3.5, "mpris:length": "long"},
                                        status=None, position="x", rate=-1), problems)
        self.assertEqual((state.title, state.artist, state.length, state.position, state.status, state.rate),
                         (None, None, None, None, "Stopped", 1.0))
        self.assertEqual(sorted(problems), ["PlaybackStatus", "mpris:length", "xesam:artist: not a list of text",
                                            "xesam:title: not text (int)"])
        timeline = media.timeline(state, NOW)
        self.assertEqual(timeline["entries"][0]["fields"]["title"]["value"], "Unknown title")
        json.dumps(timeline, default=str)
        problems = []
        media.shown(self.player(metadata=["not", "a", "dict"]), problems)
        self.assertEqual(problems, ["Metadata"])

    def test_no_player_is_the_placeholder(self) -> None:
        timeline = media.timeline(None, NOW)
        self.assertEqual(timeline["entries"], [])
        self.assertEqual(timeline["placeholder"], media.placeholder())

    def test_a_state_the_last_timeline_foresaw_is_not_written_again(self) -> None:
        playing = media.shown(self.player(), [])             # at 20 s of 200 s
        later = playing._replace(position=playing.position + 10.2)
        last = ("mpv", playing, 100.0)
        self.assertTrue(media.foreseen(last, "mpv", later, 110.0))
        self.assertFalse(media.foreseen(last, "mpv", later, 105.0))                   # a seek
        self.assertFalse(media.foreseen(last, "vlc", later, 110.0))                   # another player
        self.assertFalse(media.foreseen(last, "mpv", later._replace(title="B"), 110.0))
        paused = media.shown(self.player(status="Paused"), [])
        self.assertTrue(media.foreseen(("mpv", paused, 100.0), "mpv", paused, 500.0))
        self.assertFalse(media.foreseen(None, "mpv", playing, 100.0))
        self.assertFalse(media.foreseen(("mpv", None, 100.0), "mpv", playing, 100.0))

    def test_the_active_player_is_the_one_playing_else_the_latest(self) -> None:
        self.assertEqual(media.choose({"a": ("Playing", 1), "b": ("Paused", 5)}), "a")
        self.assertEqual(media.choose({"a": ("Paused", 1), "b": ("Stopped", 5)}), "b")
        self.assertEqual(media.choose({"a": ("Playing", 1), "b": ("Playing", 5)}), "b")
        self.assertIsNone(media.choose({}))


class CalendarTests(unittest.TestCase):
    def event(self, start: _dt.datetime, end: _dt.datetime, summary: object = "Dentist",
              location: object = "Main street", all_day: bool = False) -> calendar.Event:
        return calendar.Event(start, end, all_day, summary, location, str(summary) + start.isoformat())

    def test_one_entry_per_foreseeable_change(self) -> None:
        events = [self.event(at(10), at(11)), self.event(at(14), at(15), "Lunch"),
                  self.event(at(8), at(9, 30), "Standup"), self.event(at(1, day=1), at(2, day=1), "Past")]
        timeline = calendar.timeline(events, NOW, UTC)
        self.assertEqual([e["date"] for e in timeline["entries"]], [NOW, at(9, 30), at(10), at(11), at(14), at(15)])
        titles = [e["fields"]["title"]["value"] for e in timeline["entries"]]
        self.assertEqual(titles, ["Standup", "Dentist", "Dentist", "Lunch", "Lunch", "No more events"])
        self.assertEqual(timeline["policy"], {"kind": "after", "date": at(0, day=3)})

    def test_times_are_public_titles_and_locations_sensitive(self) -> None:
        fields = calendar.timeline([self.event(at(10), at(11)), self.event(at(12), at(13), "Lunch")], NOW, UTC)[
            "entries"][0]["fields"]
        self.assertEqual(fields["start"], {"value": "2026-03-02T10:00:00Z", "privacy": "public", "role": "date",
                                           "style": "time"})
        self.assertEqual(fields["title"]["privacy"], "sensitive")
        self.assertEqual(fields["location"]["privacy"], "sensitive")
        self.assertEqual(fields["event2"], {"value": "12:00 Lunch", "privacy": "sensitive", "role": "detail"})

    def test_the_open_action_requires_authentication(self) -> None:
        timeline = calendar.timeline([self.event(at(10), at(11))], NOW, UTC)
        for entry in timeline["entries"]:
            self.assertEqual(entry["actions"], [calendar.OPEN_ACTION])
        self.assertEqual(calendar.OPEN_ACTION["authentication"], "requiresAuthentication")

    def test_only_today_and_tomorrow(self) -> None:
        timeline = calendar.timeline([self.event(at(10, day=4), at(11, day=4)), self.event(at(10, day=3), at(11, day=3))],
                                     NOW, UTC)
        self.assertEqual(timeline["entries"][0]["fields"]["when"]["value"], "Tomorrow")
        self.assertEqual(len(timeline["entries"]), 3)

    def test_bad_titles_are_cleaned_or_left_out(self) -> None:
        problems: list = []
        events = [self.event(at(10), at(11), "x" * 10_000_000 + "\u202e"), self.event(at(12), at(13), 42, location=[1])]
        timeline = calendar.timeline(events, NOW, UTC, problems)
        first = timeline["entries"][0]["fields"]
        self.assertEqual(len(first["title"]["value"]), 120)
        self.assertEqual(first["event2"]["value"], "12:00 Untitled event")
        self.assertIn("event title: too long", problems)
        self.assertIn("event title: not text (int)", problems)
        self.assertLess(len(json.dumps(timeline, default=str)), 20_000)

    def test_an_event_in_progress_says_until(self) -> None:
        fields = calendar.timeline([self.event(at(8), at(10))], NOW, UTC)["entries"][0]["fields"]
        self.assertEqual(fields["when"]["value"], "Now, until 10:00")
        self.assertNotIn("start", fields)

    def test_entries_are_bounded(self) -> None:
        events = [self.event(NOW + _dt.timedelta(minutes=5 * i), NOW + _dt.timedelta(minutes=5 * i + 1)) for i in range(200)]
        self.assertEqual(len(calendar.timeline(events, NOW, UTC)["entries"]), calendar.MAX_ENTRIES)

    def test_midnight_and_local_times_follow_daylight_saving(self) -> None:
        from zoneinfo import ZoneInfo
        berlin = ZoneInfo("Europe/Berlin")
        now = _dt.datetime(2026, 3, 29, 10, 0, tzinfo=UTC)          # the day summer time starts
        self.assertEqual(calendar.next_midnight(now, berlin), _dt.datetime(2026, 3, 29, 22, 0, tzinfo=UTC))
        event = self.event(_dt.datetime(2026, 3, 30, 7, 0, tzinfo=UTC), _dt.datetime(2026, 3, 30, 8, 0, tzinfo=UTC))
        first = self.event(_dt.datetime(2026, 3, 29, 12, 0, tzinfo=UTC), _dt.datetime(2026, 3, 29, 13, 0, tzinfo=UTC))
        fields = calendar.timeline([first, event], now, berlin)["entries"][0]["fields"]
        self.assertEqual(fields["event2"]["value"], "Tomorrow 09:00 Dentist")   # CEST, UTC+2

    def test_no_calendar_is_the_placeholder(self) -> None:
        self.assertEqual(calendar.absent()["entries"], [])


if __name__ == "__main__":
    unittest.main()
