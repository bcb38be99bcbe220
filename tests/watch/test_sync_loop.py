"""The background sync's schedule (coffer/watch/sync_loop.py, ADR 0035): fed times and
outcomes, never a clock or a sleep."""

from __future__ import annotations

import logging

from coffer.watch.sync_loop import (
    BACKOFF_CAP,
    BACKOFF_FIRST,
    FAILED,
    OK,
    REFUSED,
    UNREACHABLE,
    Line,
    Outcome,
    Round,
    SyncSchedule,
)

QUIET = Outcome(OK, "nothing new")
DOWN = Outcome(UNREACHABLE, "ssh: Could not resolve hostname example.invalid")


def loud(lines: list[Line]) -> list[str]:
    """What reaches a log at the default level (INFO)."""
    return [text for level, text in lines if level >= logging.INFO]


def started(s: SyncSchedule, now: float) -> Round:
    r = s.start(now)
    assert r is not None, f"no round due at {now} (next {s.next_due()})"
    return r


def test_first_round_at_once_then_every_interval() -> None:
    s = SyncSchedule(1000.0, interval=300)
    assert started(s, 1000.0) == Round(push=True, reason="start")
    assert s.start(1000.5) is None  # one at a time
    assert s.next_due() is None  # while it runs, only its end re-plans
    assert loud(s.finished(1002.0, QUIET)) == []  # a round that moved nothing is not news
    assert s.next_due() == 1302.0
    assert s.start(1301.9) is None
    assert started(s, 1302.0) == Round(push=True, reason="interval")


def test_a_change_is_pushed_after_the_debounce_and_a_burst_within_max_wait() -> None:
    s = SyncSchedule(0.0, interval=300, debounce=10, max_wait=60)
    started(s, 0.0)
    s.finished(1.0, QUIET)
    for t in (20.0, 25.0, 28.0):
        s.changed(t)
    assert s.next_due() == 38.0  # 10 s after the last change
    assert s.start(37.9) is None
    assert started(s, 38.0) == Round(push=True, reason="change")
    s.finished(39.0, Outcome(OK, "pushed 1", pushed=1))
    # A change every 5 s never goes quiet: pushed 60 s after the first one anyway.
    for t in range(40, 130, 5):
        s.changed(float(t))
        if t < 100:
            assert s.start(float(t)) is None
    assert started(s, 100.0).reason == "change"


def test_a_change_during_a_round_arms_the_next_one() -> None:
    s = SyncSchedule(0.0, debounce=10)
    started(s, 0.0)
    s.changed(3.0)  # an agent writes while the round runs
    assert s.next_due() is None
    s.finished(5.0, QUIET)
    assert s.next_due() == 13.0
    assert started(s, 13.0) == Round(push=True, reason="change")


def test_offline_backs_off_exponentially_with_one_line_down_and_one_back() -> None:
    s = SyncSchedule(0.0, interval=300)
    now, said, delays = 0.0, [], []
    for _ in range(12):
        r = started(s, now)
        assert r.push  # local commits wait to be pushed
        said += loud(s.finished(now, DOWN))
        assert s.state() == "offline"
        due = s.next_due()
        assert due is not None
        delays.append(due - now)
        s.changed(now + 1)  # changes while offline do not hurry the retry
        assert s.next_due() == due
        now = due
    expected = [min(BACKOFF_CAP, BACKOFF_FIRST * 2**k) for k in range(12)]
    assert delays == expected and delays[:3] == [30.0, 60.0, 120.0] and delays[-1] == 1800.0
    assert len(said) == 1 and "unreachable, working offline" in said[0]
    assert "Could not resolve hostname" in said[0]
    started(s, now)
    back = loud(s.finished(now, QUIET))
    assert len(back) == 1 and back[0].startswith("sync: back online after")
    assert "(12 failed tries)" in back[0]
    # Reset on success: the interval again, and a new outage starts at 30 s.
    assert s.state() == "idle" and s.next_due() == now + 300
    started(s, now + 300)
    assert len(loud(s.finished(now + 300, DOWN))) == 1
    assert s.next_due() == now + 300 + BACKOFF_FIRST


def test_other_failures_back_off_and_log_once_per_distinct_error() -> None:
    s = SyncSchedule(0.0)
    boom = Outcome(FAILED, "SyncError: the sync repository is damaged")
    started(s, 0.0)
    assert len(loud(s.finished(0.0, boom))) == 1
    assert s.state() == "failing" and s.next_due() == 30.0
    started(s, 30.0)
    assert loud(s.finished(30.0, boom)) == []  # the same error again: debug only
    started(s, 90.0)
    assert len(loud(s.finished(90.0, Outcome(FAILED, "OSError: disk full")))) == 1
    started(s, 210.0)
    assert loud(s.finished(210.0, QUIET)) == ["sync: rounds work again"]
    assert s.last_error == "OSError: disk full"  # kept for --status


def test_a_refused_push_is_logged_once_and_not_retried_until_entries_change() -> None:
    s = SyncSchedule(0.0, interval=300, debounce=10)
    refused = Outcome(REFUSED, "2 entries look like they hold a secret: api-key, db")
    started(s, 0.0)
    said = loud(s.finished(1.0, refused))
    assert len(said) == 1 and "api-key, db" in said[0]
    assert s.state() == "held" and s.next_due() == 301.0  # no back-off: not a network failure
    for t in (301.0, 602.0, 903.0):  # interval rounds still pull, but do not push
        assert started(s, t) == Round(push=False, reason="interval")
        assert loud(s.finished(t + 1, refused)) == []
    s.changed(950.0)  # events that turn out to be a pull's own writes
    s.drop_change()
    assert started(s, 1205.0) == Round(push=False, reason="interval")  # still held
    assert loud(s.finished(1206.0, refused)) == []
    s.changed(1300.0)  # the user fixed (or forgot) an entry
    assert started(s, 1310.0) == Round(push=True, reason="change")
    assert loud(s.finished(1311.0, refused)) == []  # the same set: already said
    s.changed(1400.0)
    started(s, 1410.0)
    other = Outcome(REFUSED, "1 entry looks like it holds a secret: db")
    assert len(loud(s.finished(1411.0, other))) == 1  # a different set: said once
    s.changed(1500.0)
    started(s, 1510.0)
    assert loud(s.finished(1511.0, Outcome(OK, "pushed 2", pushed=2))) == [
        "sync: pushed 2",
        "sync: the secret gate no longer holds anything back",
    ]
    assert s.state() == "idle" and started(s, 1811.0).push


def test_a_refusal_while_offline_keeps_the_back_off() -> None:
    s = SyncSchedule(0.0)
    started(s, 0.0)
    s.finished(0.0, DOWN)
    started(s, 30.0)
    s.finished(30.0, Outcome(REFUSED, "1 entry: k"))
    assert s.state() == "offline" and s.next_due() == 60.0  # not a busy loop at 30 s


def test_entries_held_back_by_a_report_are_logged_once_and_pushing_goes_on() -> None:
    s = SyncSchedule(0.0, interval=300)
    held = Outcome(OK, "pushed 3, 1 held back", pushed=3, blocked=("token-note",))
    started(s, 0.0)
    said = loud(s.finished(1.0, held))
    assert said == [
        "sync: pushed 3, 1 held back",
        "sync: push refused by the secret gate: 1 held back: token-note",
    ]
    assert started(s, 301.0).push  # the rest was pushed: nothing to hold
    assert loud(s.finished(302.0, held._replace(pushed=0, detail="nothing new"))) == []
    assert s.pushed == 3 and s.rounds == 2


def test_conflicts_are_warnings_and_totals_add_up() -> None:
    s = SyncSchedule(0.0)
    started(s, 0.0)
    lines = s.finished(1.0, Outcome(OK, "pulled 2, 1 conflict", pulled=2, conflicts=("deploy",)))
    assert lines == [(logging.WARNING, "sync: pulled 2, 1 conflict")]
    assert (s.pulled, s.pushed, s.rounds) == (2, 0, 1)


def test_snapshot_turns_monotonic_times_into_wall_clock() -> None:
    s = SyncSchedule(50.0, interval=300)
    started(s, 50.0)
    assert s.snapshot(50.0, 1_800_000_000.0)["state"] == "running"
    s.finished(60.0, DOWN)
    snap = s.snapshot(70.0, 1_800_000_000.0)  # wall 1_800_000_000 is monotonic 70
    assert snap["state"] == "offline"
    assert snap["last_round_at"] == "2027-01-15T07:59:50+00:00"  # 10 s before the wall now
    assert snap["offline_since"] == snap["last_round_at"] == snap["last_error_at"]
    assert snap["next_round_at"] == "2027-01-15T08:00:20+00:00"  # 60 + 30 s back-off
    assert snap["failures"] == 1 and "Could not resolve" in snap["last_error"]
    assert snap["interval"] == 300


def test_a_new_interval_takes_effect_without_waiting_out_the_old_one() -> None:
    s = SyncSchedule(0.0, interval=3600)
    started(s, 0.0)
    s.finished(0.0, QUIET)
    s.set_interval(60.0, 10.0)
    assert s.next_due() == 70.0
    s.set_interval(600.0, 20.0)
    assert s.next_due() == 70.0  # the round already planned still runs
