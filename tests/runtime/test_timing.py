"""Timing on a shared host: say when the machine was busy, and stay inside a budget."""
import time

from tepad.runtime.timing import bounded_times, busy_note


def test_busy_note_only_when_the_median_is_far_from_the_minimum():
    assert busy_note([1.0, 1.1, 1.2, 1.05]) == ""
    note = busy_note([1.0, 5.0, 6.0, 7.0])
    assert "machine busy" in note and "6.0x the minimum" in note
    assert busy_note([]) == "" and busy_note([0.002]) == ""


def test_bounded_times_stops_at_the_budget_after_the_minimum_calls():
    ts, cut = bounded_times(lambda: time.sleep(0.02), n=1000, budget_s=0.1)
    assert cut and 3 <= len(ts) < 20
    ts, cut = bounded_times(lambda: None, n=5, budget_s=10.0)
    assert not cut and len(ts) == 5
    ts, cut = bounded_times(lambda: time.sleep(0.05), n=10, budget_s=0.0)
    assert cut and len(ts) == 3
