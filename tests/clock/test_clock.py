"""The clock library with an explicit (fake) time: no sleeping."""

from __future__ import annotations

import json

import pytest

from throne.clock import HOUR_MS, Clock, ClockError, TimeControl

FISCHER = TimeControl.parse({"kind": "fischer", "minutes": 1, "increment": 2})


def test_fischer_increment_is_added_per_turn_not_per_decision() -> None:
    clock = Clock.new(FISCHER, 2)
    clock.start(0, 0)
    clock.moved(0, 0, 10_000)  # a Leaders action: the same seat decides again (recruitment)
    assert clock.left(0, 10_000) == 50_000  # no increment inside a turn
    clock.moved(0, 1, 15_000)  # the turn passes
    assert clock.remaining == [47_000, 60_000] and clock.running == 1
    assert clock.left(1, 25_000) == 50_000 and clock.left(0, 25_000) == 47_000
    assert clock.turns == [1, 0]


def test_victim_decision_runs_on_the_victims_clock() -> None:
    clock = Clock.new(FISCHER, 3)
    clock.start(0, 0)
    clock.moved(0, 2, 1_000)  # seat 2 must answer a Doubtful Priest: its own clock runs
    assert clock.running == 2
    clock.moved(2, 0, 4_000)
    assert clock.remaining[2] == 60_000 - 3_000 + 2_000
    assert clock.remaining[1] == 60_000


def test_flag_falls_when_time_runs_out() -> None:
    clock = Clock.new(FISCHER, 2)
    clock.start(0, 0)
    assert clock.due_in(0) == 60_000
    assert clock.flagged(59_999) is None
    assert clock.flagged(60_000) == 0
    clock.stop(70_000)
    assert clock.remaining[0] == 0 and clock.running is None and clock.flagged(10**9) is None


def test_correspondence_deadline_restarts_each_turn() -> None:
    control = TimeControl.parse({"kind": "correspondence", "hours": 24})
    clock = Clock.new(control, 2)
    clock.start(0, 0)
    clock.moved(0, 1, 23 * HOUR_MS)
    assert clock.left(1, 23 * HOUR_MS) == 24 * HOUR_MS
    assert clock.left(0, 23 * HOUR_MS) == HOUR_MS  # no bank: what is left of a turn is not kept
    clock.moved(1, 0, 30 * HOUR_MS)
    assert clock.left(0, 30 * HOUR_MS) == 24 * HOUR_MS
    assert clock.flagged(54 * HOUR_MS) == 0


def test_snapshot_and_restore_do_not_charge_downtime() -> None:
    clock = Clock.new(FISCHER, 2)
    clock.start(0, 0)
    clock.moved(0, 1, 5_000)
    data = json.loads(json.dumps(clock.snapshot(8_000)))  # what the store keeps
    assert data["remaining_ms"] == [57_000, 57_000] and data["running"] == 1
    back = Clock.restore(data, 1_000_000)  # the server was down for a long while
    assert back.left(1, 1_000_000) == 57_000
    assert back.left(1, 1_010_000) == 47_000
    assert back.control == FISCHER and back.turns == [1, 0]


def test_untimed_clock_never_runs() -> None:
    clock = Clock.new(TimeControl.parse(None), 2)
    clock.start(0, 0)
    clock.moved(0, 1, 10**9)
    assert clock.running is None and clock.flagged(10**12) is None and clock.to_json(0) is None


def test_protocol_json() -> None:
    clock = Clock.new(FISCHER, 2)
    clock.start(1, 100)
    assert clock.to_json(600) == {
        "control": {"kind": "fischer", "minutes": 1, "increment": 2},
        "remaining_ms": [60_000, 59_500],
        "running": 1,
        "server_time": 600,
    }


PARSED = [
    ({"kind": "untimed"}, TimeControl()),
    ({"kind": "fischer", "minutes": 5}, TimeControl("fischer", 300_000, 0, 0)),
    ({"kind": "fischer", "minutes": 3, "increment": 2}, TimeControl("fischer", 180_000, 2_000, 0)),
    ({"kind": "correspondence", "hours": 12}, TimeControl("correspondence", 0, 0, 12 * HOUR_MS)),
    ({"kind": "correspondence", "days": 2}, TimeControl("correspondence", 0, 0, 48 * HOUR_MS)),
]


@pytest.mark.parametrize(("data", "control"), PARSED)
def test_parse_round_trips(data: dict, control: TimeControl) -> None:
    assert TimeControl.parse(data) == control
    assert TimeControl.parse(control.to_json()) == control


REFUSED = [
    ("fischer", "a time control is an object"),
    ({"kind": "blitz"}, "kind must be one of"),
    ({"kind": "fischer"}, "minutes is an integer from 1 to 180"),
    ({"kind": "fischer", "minutes": 0}, "minutes is an integer"),
    ({"kind": "fischer", "minutes": True}, "minutes is an integer"),
    ({"kind": "fischer", "minutes": 5, "increment": 61}, "increment is an integer from 0 to 60"),
    ({"kind": "fischer", "minutes": 5, "speed": 1}, "unknown time control field 'speed'"),
    ({"kind": "correspondence"}, "either hours or days"),
    ({"kind": "correspondence", "hours": 1, "days": 1}, "either hours or days"),
    ({"kind": "correspondence", "days": 15}, "days is an integer from 1 to 14"),
]


@pytest.mark.parametrize(("data", "message"), REFUSED)
def test_parse_refuses_precisely(data: object, message: str) -> None:
    with pytest.raises(ClockError, match=message):
        TimeControl.parse(data)
