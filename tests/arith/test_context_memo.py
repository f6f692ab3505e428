"""The simplification memo keeps whole functions' contexts, within a memory budget."""
import sys
import os

import tepad
from tepad.arith.context import MEMO, ContextMemo

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
from bench_compile import chain  # noqa: E402


def test_the_oldest_half_goes_when_the_context_limit_is_reached():
    m = ContextMemo(max_contexts=8)
    for k in range(8):
        m.table(k)["x"] = k
    m.table(8)
    assert sorted(m._tables) == [4, 5, 6, 7, 8]
    assert m.table(5) == {"x": 5}          # a kept context keeps its results


def test_the_total_number_of_results_is_bounded():
    m = ContextMemo(max_contexts=10_000, max_total=1000)
    for k in range(2048):
        t = m.table(k)
        for j in range(10):
            t[j] = j
    total = sum(len(t) for t in m._tables.values())
    assert total <= 1000 + 256 * 10, total


def test_a_table_is_emptied_when_it_is_full():
    m = ContextMemo(max_entries=3)
    t = m.table("c")
    t.update({1: 1, 2: 2, 3: 3})
    assert m.table("c") == {}


def test_later_simplify_passes_find_the_first_ones_results(monkeypatch):
    """A 30-stage chain lowered in exact mode: its function has more than 256 loop, let and
    guard contexts, and the Simplify passes after the first reuse its results (they would
    redo the work if the memo dropped the function's early contexts)."""
    from tepad.arith import rewrite
    calls = []
    orig = rewrite.Simplifier._dispatch

    def counting(self, e):
        calls.append(1)
        return orig(self, e)

    s, args = chain(30, "clamped", "tiled")
    MEMO.clear()
    monkeypatch.setattr(rewrite.Simplifier, "_dispatch", counting)
    from tepad.lower import pipeline
    plog = pipeline.PassLog()
    stamps = {}
    orig_record = plog.record

    def record(label, before, after, seconds, skipped=False):
        stamps[label] = len(calls)
        return orig_record(label, before, after, seconds, skipped)

    plog.record = record
    tepad.lower(s, args, exact_bounds=True, log=plog)
    assert len(MEMO._tables) > 256
    labels = list(stamps)
    first = labels.index("simplify")
    second = labels.index("simplify.flattened")
    work_first = stamps["simplify"] - stamps[labels[first - 1]]
    work_second = stamps["simplify.flattened"] - stamps[labels[second - 1]]
    assert work_second < work_first / 2, (work_first, work_second)
