"""``benchmarks/bench_plain.py``: the plain tutorial schedules of W1-W5 compute what numpy
does, stay plain (no stage beyond the workload's own), and the report pieces behave."""
import os
import sys

import numpy as np
import pytest

import tepad
from tepad import codegen

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import bench_plain  # noqa: E402


@pytest.mark.parametrize("key", sorted(bench_plain.PLAIN))
def test_plain_schedule_matches_numpy(key):
    with codegen.cache_disabled():
        err = bench_plain.check_plain(key)
    assert err <= bench_plain.WL[key].tol


def test_plain_w3_partial_tile_and_w5_partial_block():
    # 4094 columns leave a partial 256-column tile at full size; 298 does here, and 1000 rows
    # a partial 256-row block of W5
    for key, sizes in (("W3", dict(n=300)), ("W5", dict(rows=1000, cols=14)),
                       ("W1", dict(n=40)), ("W2", dict(n=96))):
        bench_plain.check_plain(key, sizes)


@pytest.mark.parametrize("key,stages", [("W1", {"A", "B", "C"}), ("W2", {"A", "B", "C"}),
                                        ("W3", {"A", "Bx", "By"}),
                                        ("W4", {"X", "W", "Xp", "Y"}), ("W5", {"A", "B"})])
def test_plain_schedules_add_no_stage(key, stages):
    # plain = no packing stage, no cache_write / cache_read: only the workload's own stages
    s, _ = bench_plain.PLAIN[key](**bench_plain.SMALL[key])
    assert {st.op.name for st in s.stages} == stages


def test_plain_w2_is_the_tutorial_loop_order():
    s, args = bench_plain.plain_w2(n=64)
    text = str(tepad.lower(s, args)["main"])
    # the vectorized 32 columns innermost, row tiles parallel
    assert "parallel" in text and "vectorized" in text


def test_check_plain_rejects_a_wrong_kernel(monkeypatch):
    def wrong(n=4096):
        s, args = bench_plain.plain_w1(n)
        A, B, _ = args
        C = tepad.te.compute((n, n), lambda i, j: A[i, j] * B[i, j], name="C")
        return tepad.te.create_schedule(C.op), [A, B, C]
    monkeypatch.setitem(bench_plain.PLAIN, "W1", wrong)
    with pytest.raises(AssertionError, match="W1 plain"):
        bench_plain.check_plain("W1", dict(n=32))


def test_aggregate_takes_the_median_of_process_medians_and_best_peer():
    procs = [{"W1": {"plain": 1.0, "tvm: a": 2.0, "tvm: b": 0.5, "halide: c": 0.9}},
             {"W1": {"plain": 3.0, "tvm: a": 2.0, "tvm: b": 0.7, "halide: c": 1.1}},
             {"W1": {"plain": 2.0, "tvm: a": 2.0, "tvm: b": 0.6, "halide: c": 1.0}}]
    res = bench_plain.aggregate(procs)
    assert res["W1"]["plain"] == pytest.approx(2000.0)
    assert bench_plain.best(res["W1"], "tvm") == (pytest.approx(600.0), "b")
    assert bench_plain.best(res["W1"], "halide")[0] == pytest.approx(1000.0)
    assert bench_plain.best(res["W1"], "nobody") is None


def test_interleaved_times_every_kernel():
    calls = {"a": 0, "b": 0}

    def f(k):
        def g():
            calls[k] += 1
            np.ones(10).sum()
        return g
    res = bench_plain.interleaved({"a": f("a"), "b": f("b")}, rounds=2,
                                  clock=__import__("time").perf_counter)
    assert set(res) == {"a", "b"} and all(v > 0 for v in res.values())
    assert calls["a"] >= 4 and calls["b"] >= 4   # warm-up, estimate, >= 1 per round


def test_write_section_replaces_only_its_own_section(tmp_path):
    p = tmp_path / "R.md"
    p.write_text("# top\n\n## Other\n\nkeep me\n")
    sec = lambda body: "\n".join([bench_plain.SECTION, "", bench_plain.BEGIN, body,  # noqa: E731
                                  bench_plain.END])
    bench_plain.write_section(p, sec("first"))
    p.write_text(p.read_text() + "\n## After\n\nkeep me too\n")
    bench_plain.write_section(p, sec("second"))
    text = p.read_text()
    assert "first" not in text and "second" in text
    assert text.count(bench_plain.SECTION) == 1
    assert "## Other\n\nkeep me" in text and "## After\n\nkeep me too" in text


def test_kernel_arguments_are_aligned_copies():
    # tepad is timed on 64-byte aligned arrays, as TVM's tensors are (numpy's are 16 bytes off)
    s, args = bench_plain.plain_w1(n=64)
    base = np.zeros(64 * 64 + 4, "float32")
    a, b = base[1:1 + 64 * 64].reshape(64, 64), np.ones((64, 64), "float32")
    arrays, outs = bench_plain.call_args(args, [a, b])
    assert all(x.ctypes.data % 64 == 0 for x in arrays)
    assert outs == [arrays[2]] and not outs[0].any()
    np.testing.assert_array_equal(arrays[0], a)
    assert not np.shares_memory(arrays[0], a)
