"""The CPU sketch's inlining and compute-location rules (TVM's strict inlining), the
accumulator block's loops, and the runner's robust cost: IR facts and numerics against
numpy, in both bound modes."""
import random
import re

import numpy as np
import pytest

import tepad
from tepad import TepadError, auto_scheduler, te
from tepad.auto_scheduler import ComputeDAG, Sketch
from tepad.auto_scheduler.loop_state import apply_steps
from tepad.auto_scheduler.measure import MeasureResult, result_cost
from tepad.auto_scheduler.sketch import strictly_inlinable

from .workloads import conv2d_nchw, matmul_add, softmax

TARGET = tepad.target.Target("llvm")


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape).astype("float32")


def _softmax_numpy(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _conv_numpy(d, w):
    dp = np.pad(d, ((0, 0), (0, 0), (1, 1), (1, 1)))
    oh, ow = d.shape[2], d.shape[3]
    out = np.zeros((d.shape[0], w.shape[0], oh, ow), "float32")
    for ry in range(3):
        for rx in range(3):
            out += np.einsum("nchw,fc->nfhw", dp[:, :, ry:ry + oh, rx:rx + ow], w[:, :, ry, rx])
    return out


def _depthwise(c, h, w):
    data = te.placeholder((1, c, h, w), name="data")
    weight = te.placeholder((c, 3, 3), name="weight")
    pad = te.compute((1, c, h + 2, w + 2), lambda b, ci, y, x: te.if_then_else(
        te.all(y >= 1, y < h + 1, x >= 1, x < w + 1), data[b, ci, y - 1, x - 1], 0.0),
        name="pad")
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    conv = te.compute((1, c, h, w), lambda b, f, y, x: te.sum(
        pad[b, f, y + ry, x + rx] * weight[f, ry, rx], axis=[ry, rx]), name="conv")
    return [data, weight, conv]


def test_strictly_inlinable_is_tvms_rule():
    a = te.placeholder((8, 6), name="a")
    v = te.placeholder((6,), name="v")
    plain = te.compute((8, 6), lambda i, j: a[i, j] * 2.0 + v[j], name="plain")
    assert strictly_inlinable(plain.op)          # a broadcast read leaves a loop out: fine
    shifted = te.compute((8, 5), lambda i, j: a[i, j + 1], name="shifted")
    transposed = te.compute((6, 8), lambda i, j: a[j, i], name="transposed")
    branch = te.compute((8, 6), lambda i, j: te.if_then_else(j > 0, a[i, j], 0.0),
                        name="branch")
    select = te.compute((8, 6), lambda i, j: te.max(a[i, j], 0.0) + tepad.tir.Select(
        i > 2, a[i, j], 1.0), name="select")
    expensive = te.compute((8, 6), lambda i, j: te.exp(a[i, j]), name="expensive")
    for t in (shifted, transposed, branch, select, expensive):
        assert not strictly_inlinable(t.op), t.op.name
    const = te.compute((4,), lambda i: i * 2.0, name="const")
    assert strictly_inlinable(const.op)          # reads nothing


@pytest.mark.parametrize("exact", [False, True])
def test_softmax_computes_exp_once_per_element(exact):
    x, out = softmax(16, 64)
    sk = Sketch(ComputeDAG([x, out]), TARGET)
    # exp has two consumers (the sum and the division): never inlined
    assert sk.loc_choices == {"e": ["root"]}
    s, args = auto_scheduler.default_schedule(out, TARGET)
    text = str(tepad.lower(s, args, simple_mode=True, exact_bounds=exact))
    assert len(re.findall(r"T\.exp\(", text)) == 1
    xv = _rand(16, 64)
    o = np.zeros((16, 64), "float32")
    f = tepad.build(s, args, TARGET, exact_bounds=exact)
    f(xv, o)
    np.testing.assert_allclose(o, _softmax_numpy(xv), rtol=1e-5, atol=1e-7)
    for seed in range(6):                        # no drawn state inlines it either
        p = sk.random_params(random.Random(seed))
        assert ["CI", "e"] not in sk.steps(p)


def test_exp_inlined_only_into_one_elementwise_read():
    a = te.placeholder((8, 32), name="a")
    e = te.compute((8, 32), lambda i, j: te.exp(a[i, j]), name="e")
    out = te.compute((8, 32), lambda i, j: e[i, j] * 2.0, name="out")
    assert Sketch(ComputeDAG([a, out]), TARGET).loc_choices["e"] == ["inline", "root"]
    twice = te.compute((8, 32), lambda i, j: e[i, j] * e[i, j], name="twice")
    assert Sketch(ComputeDAG([a, twice]), TARGET).loc_choices["e"] == ["root"]
    k = te.reduce_axis((0, 32), name="k")
    red = te.compute((8,), lambda i: te.sum(e[i, k], axis=k), name="red")
    assert "inline" not in Sketch(ComputeDAG([a, red]), TARGET).loc_choices["e"]


@pytest.mark.parametrize("loc", ["at", "root", "inline"])
@pytest.mark.parametrize("exact", [False, True])
def test_conv_padding_locations(loc, exact):
    data, weight, conv = conv2d_nchw(1, 4, 12, 12, 16, 3, 3, 1)
    dag = ComputeDAG([data, weight, conv])
    sk = Sketch(dag, TARGET)
    assert sk.loc_choices["pad"] == ["at", "root", "inline"]   # read 16 * 9 times: kept
    p = sk.default_params()
    p["loc"] = {"pad": loc}
    s, args, _ = apply_steps(dag, sk.steps(p))
    text = str(tepad.lower(s, args, simple_mode=True, exact_bounds=exact))
    inner = text[text.index("conv_local"):]
    if loc == "inline":
        assert "if_then_else" in inner
    else:                       # the reduction reads a padded buffer, no branch per tap
        assert "if_then_else" not in inner.split("for rc")[1].split("conv[")[0]
    if loc == "at":             # padded per parallel tile, inside the parallel loop
        assert text.index("T.parallel") < text.index("pad = T.allocate")
    d, w = _rand(1, 4, 12, 12), _rand(16, 4, 3, 3, seed=1)
    o = np.zeros((1, 16, 12, 12), "float32")
    tepad.build(s, args, TARGET, exact_bounds=exact)(d, w, o)
    np.testing.assert_allclose(o, _conv_numpy(d, w), rtol=1e-4, atol=1e-5)


def test_depthwise_padding_inlined_by_default():
    data, weight, conv = _depthwise(8, 14, 14)
    sk = Sketch(ComputeDAG([data, weight, conv]), TARGET)
    assert sk.loc_choices["pad"][0] == "inline"     # read 9 times per element: recomputed
    s, args = auto_scheduler.default_schedule(conv, TARGET)
    d, w = _rand(1, 8, 14, 14), _rand(8, 3, 3, seed=1)
    o = np.zeros((1, 8, 14, 14), "float32")
    tepad.build(s, args, TARGET)(d, w, o)
    dp = np.pad(d, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = sum(dp[:, :, ry:ry + 14, rx:rx + 14] * w[None, :, ry, rx, None, None]
               for ry in range(3) for rx in range(3))
    np.testing.assert_allclose(o, want, rtol=1e-4, atol=1e-5)


def test_accumulator_block_spans_the_reused_loop():
    lanes = TARGET.vector_lanes("float32")
    w = 2 * lanes                   # a row of whole vectors: x stays the vector axis
    data, weight, conv = conv2d_nchw(1, 8, 6, w, 32, 3, 3, 1)
    p = Sketch(ComputeDAG([data, weight, conv]), TARGET).default_params()
    tile = p["tile"]
    assert p["vec"] == {"conv": "x"}
    # the data is reused across output channels: ff carries the block, not y
    assert tile["conv/ff"][3] > 1 and tile["conv/y"][3] == 1
    assert tile["conv/x"][3] % lanes == 0
    A, B, C, out = matmul_add(64, 64, 64, "float32")
    tile = Sketch(ComputeDAG([A, B, C, out]), TARGET).default_params()["tile"]
    assert tile["matmul/i"][3] > 1


def test_mutation_and_crossover_keep_locations_valid():
    data, weight, conv = conv2d_nchw(1, 4, 12, 12, 16, 3, 3, 1)
    sk = Sketch(ComputeDAG([data, weight, conv]), TARGET)
    rng = random.Random(0)
    p = sk.default_params()
    seen = set()
    for _ in range(60):
        q = sk.mutate(p, rng)
        assert q["loc"]["pad"] in sk.loc_choices["pad"]
        seen.add(q["loc"]["pad"])
        c = sk.crossover(p, q, rng)
        assert c is None or c["loc"]["pad"] in (p["loc"]["pad"], q["loc"]["pad"])
        p = q
    assert len(seen) > 1
    bad = dict(sk.default_params(), loc={"pad": "nowhere"})
    with pytest.raises(TepadError, match="compute location"):
        sk.steps(bad)


def test_result_cost_is_the_least_repeat():
    ok = MeasureResult((3e-3, 1e-3, 2e-3), 0, "", 0.1, 0.0)
    assert result_cost(ok) == 1e-3
    assert result_cost(MeasureResult((), 4, "boom", 0.1, 0.0)) == float("inf")
    with pytest.raises(TepadError, match="clock"):
        auto_scheduler.LocalRunner(clock="sundial")


def test_tuning_never_ends_worse_than_the_default(tmp_path):
    log = str(tmp_path / "mm.json")
    summary = auto_scheduler.tune_workload(matmul_add, (32, 32, 32, "float32"), 4, log,
                                           seed=0)
    assert summary.errors == 0 and summary.default_cost is not None
    assert summary.confirmations > 0
    task = auto_scheduler.SearchTask(func=matmul_add, args=(32, 32, 32, "float32"),
                                     target=TARGET)
    # the default was measured again with the best few: the state apply_best picks has a
    # median cost no higher than the default's
    medians = {}
    for inp, res in auto_scheduler.load_records(log):
        medians.setdefault(inp.state.key(), []).append(result_cost(res))
    default = task.sketch.state(task.sketch.default_params())
    assert len(medians[default.key()]) == 3
    best = auto_scheduler.load_best_record(log, task.workload_key)[0].state
    assert np.median(medians[best.key()]) <= np.median(medians[default.key()])
    assert summary.best_cost == pytest.approx(np.median(medians[best.key()]))
    s, args = task.apply_best(log)
    a, b, c = _rand(32, 32), _rand(32, 32, seed=1), _rand(32, 32, seed=2)
    o = np.zeros((32, 32), "float32")
    tepad.build(s, args, TARGET)(a, b, c, o)
    np.testing.assert_allclose(o, a @ b + c, rtol=1e-5, atol=1e-5)


def test_best_state_is_judged_by_all_its_measurements():
    from tepad.auto_scheduler.measure import MeasureInput
    from tepad.auto_scheduler.measure_record import best_by_state
    from tepad.auto_scheduler.loop_state import State
    task = auto_scheduler.SearchTask(func=matmul_add, args=(16, 16, 16, "float32"),
                                     target=TARGET)
    lucky, steady = State([["CI", "x"]]), State([["CI", "y"]])

    def rec(state, ms):
        return MeasureInput(task, state), MeasureResult((ms * 1e-3,), 0, "", 0.1, 0.0)
    # one lucky timing of a state measured again (3 times in all) loses to a steady one
    pairs = [rec(lucky, 1.0), rec(steady, 1.5), rec(lucky, 2.0), rec(steady, 1.6),
             rec(lucky, 2.1)]
    [((inp, _), cost)] = best_by_state(pairs).values()
    assert inp.state == steady and cost == pytest.approx(1.55e-3)
