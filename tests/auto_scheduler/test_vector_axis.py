"""The sketch's vector-axis choice: a tiled stage's register block may be vectorized along a
spatial loop other than its last (a conv's output channels), the inputs indexed by that loop
packed with it last (``W[f, c, ry, rx]`` -> ``[f // bn, c, ry, rx, f % bn]``) and the
accumulator stored with it last; checked against numpy in both bound modes and under forced
targets, with the layouts and the vectorized loop asserted in the lowered IR."""
import random
import re

import numpy as np
import pytest

import tepad
from tepad import TepadError, auto_scheduler, te
from tepad.auto_scheduler import ComputeDAG, Sketch
from tepad.auto_scheduler.loop_state import apply_steps

from .workloads import conv2d_nchw, matmul_add

TARGET = tepad.target.Target("llvm")


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape).astype("float32")


def _conv_numpy(d, w):
    n, c, h, wd = d.shape
    dp = np.pad(d, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, w.shape[0], h, wd), "float64")
    for ry in range(3):
        for rx in range(3):
            out += np.einsum("nchw,fc->nfhw", dp[:, :, ry:ry + h, rx:rx + wd], w[:, :, ry, rx])
    return out


def _conv(c, k, h, w, relu=False):
    data, weight, conv = conv2d_nchw(1, c, h, w, k, 3, 3, 1)
    if not relu:
        return [data, weight, conv]
    out = te.compute(conv.shape, lambda b, f, y, x: te.max(conv[b, f, y, x], 0.0), name="relu")
    return [data, weight, out]


def _check_conv(s, args, c, k, h, w, target=TARGET, exact=False, relu=False):
    d, wt = _rand(1, c, h, w), _rand(k, c, 3, 3, seed=1)
    o = np.zeros((1, k, h, w), "float32")
    tepad.build(s, args, target, exact_bounds=exact)(d, wt, o)
    want = _conv_numpy(d, wt)
    np.testing.assert_allclose(o, np.maximum(want, 0) if relu else want, rtol=1e-4, atol=1e-4)


def test_conv_offers_its_output_channels_with_the_weight_packed():
    sk = Sketch(ComputeDAG(_conv(4, 32, 6, 14)), TARGET)
    assert sk.vec_choices == {"conv": ["x", "ff"]}
    assert sorted(sk.pack_choices) == ["conv/weight@ff"]
    info = sk.pack_choices["conv/weight@ff"]
    assert (info["axis"], info["last"], info["moves"]) == ("ff", 0, True)
    assert sk.pack_layout("conv/weight@ff", 16) == (["0/16", "1", "2", "3", "0%16"],
                                                   ["ax0", "ax1", "ax2", "ax3", "ax4"])


@pytest.mark.parametrize("exact", [False, True])
def test_default_vectorizes_channels_of_a_short_row(exact):
    # 14 pixels a row are no whole number of vectors (4, 8 or 16 lanes); 32 channels are
    c, k, h, w = 4, 32, 6, 14
    lanes = TARGET.vector_lanes("float32")
    s, args = auto_scheduler.default_schedule(_conv(c, k, h, w)[-1], TARGET)
    p = Sketch(ComputeDAG(args), TARGET).default_params()
    assert p["vec"] == {"conv": "ff"} and p["pack"] == {"conv/weight@ff": True}
    bn = p["tile"]["conv/ff"][3]
    assert bn % lanes == 0
    text = str(tepad.lower(s, args, simple_mode=True, exact_bounds=exact))
    # the weights are copied once, channels innermost: weight_global[.., f % bn]
    head = text.split("conv_local = T.allocate", 1)[0]
    assert f"weight_global = T.allocate([{k * c * 9}]" in head
    assert f"for ax4 in T.vectorized({bn}):" in head
    # the accumulator's vector loop is the channel loop, at unit stride in conv_local and
    # in the packed weights
    m = re.search(r"for (ax3_inner) in T\.vectorized\((\d+)\):\n\s*(conv_local\[.*)", text)
    assert m and int(m.group(2)) == bn, text
    body = m.group(3)
    assert re.search(r"conv_local\[[^\]]*\* %d \+ ax3_inner\]" % bn, body), body
    assert re.search(r"weight_global\[[^\]]*\+ ax3_inner\]", body), body
    _check_conv(s, args, c, k, h, w, exact=exact)


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("relu", [False, True])
def test_random_channel_vector_states_match_numpy(exact, relu):
    # an output conv (its accumulator a cache_write copy) and a conv computed at its relu
    c, k, h, w = 3, 12, 5, 7
    sk = Sketch(ComputeDAG(_conv(c, k, h, w, relu)), TARGET)
    assert sk.vec_choices["conv"] == ["x", "ff"]
    rng = random.Random(5)
    for i in range(6):
        p = sk.random_params(rng)
        p["vec"] = {"conv": "ff"}
        p["pack"] = {"conv/weight@ff": i % 2 == 0}
        s, args, _ = apply_steps(sk.dag, sk.steps(p))
        _check_conv(s, args, c, k, h, w, exact=exact, relu=relu)


@pytest.mark.parametrize("target", ["llvm -mcpu=haswell", "llvm -mcpu=x86-64"])
def test_forced_targets_default_and_random_states(target):
    tgt = tepad.target.Target(target)
    c, k, h, w = 4, 32, 6, 14
    tensors = _conv(c, k, h, w)
    s, args = auto_scheduler.default_schedule(tensors[-1], tgt)
    _check_conv(s, args, c, k, h, w, target=tgt)
    sk = Sketch(ComputeDAG(args), tgt)
    rng = random.Random(1)
    regs, lanes = tgt.vector_registers, tgt.vector_lanes("float32")
    for _ in range(4):
        p = sk.random_params(rng)
        block = np.prod([p["tile"][f"conv/{a}"][3] for a in ("b", "ff", "y", "x")])
        assert block <= regs * lanes
        s, args, _ = apply_steps(sk.dag, sk.steps(p))
        _check_conv(s, args, c, k, h, w, target=tgt)


def test_search_operators_cover_the_vector_axis():
    sk = Sketch(ComputeDAG(_conv(2, 8, 4, 6)), TARGET)
    rng = random.Random(0)
    drawn = {sk.random_params(rng)["vec"]["conv"] for _ in range(30)}
    assert drawn == {"x", "ff"}
    p = sk.default_params()
    seen = {sk.mutate(p, rng)["vec"]["conv"] for _ in range(80)}
    assert seen == {"x", "ff"}
    a, b = dict(p, vec={"conv": "x"}), dict(p, vec={"conv": "ff"})
    kids = [sk.crossover(a, b, random.Random(i)) for i in range(20)]
    assert {c["vec"]["conv"] for c in kids if c} == {"x", "ff"}


def test_states_without_vec_replay_along_the_last_loop():
    sk = Sketch(ComputeDAG(_conv(2, 16, 4, 6)), TARGET)
    p = sk.default_params()
    old = {key: v for key, v in p.items() if key not in ("vec", "pack")}   # an older log
    steps = sk.steps(old)
    assert not any(st[0] == "TL" for st in steps)
    assert ["AN", "conv.local", "x.1", "vectorize"] in steps
    with pytest.raises(TepadError, match="no vector axis 'y'"):
        sk.steps(dict(p, vec={"conv": "y"}))


def test_printed_code_and_replay_lower_alike():
    tensors = _conv(2, 16, 4, 6)
    dag = ComputeDAG(tensors)
    sk = Sketch(dag, TARGET)
    state = sk.state(dict(sk.default_params(), vec={"conv": "ff"},
                          pack={"conv/weight@ff": True}))
    code = dag.print_python_code_from_state(state)
    assert "transform_layout(lambda i0, i1, i2, i3: [i0, i2, i3, i1])" in code
    data, weight, conv = tensors
    ns = {"te": te, "data": data, "weight": weight, "conv": conv,
          "pad": conv.op.input_tensors[0]}
    exec(code, ns)                                          # noqa: S102 - our own code
    replay, args = dag.apply_steps_from_state(state)
    assert str(tepad.lower(ns["s"], args, simple_mode=True)) == \
        str(tepad.lower(replay, args, simple_mode=True))


def test_matmul_with_a_ragged_row_may_vectorize_rows():
    # j = 1.5 vectors is no whole number of vectors: i may be the vector axis, A packed [i/bn, k, i%bn]
    n, l, m = 32, 8, TARGET.vector_lanes("float32") * 3 // 2
    A, B, C, out = matmul_add(n, l, m, "float32")
    sk = Sketch(ComputeDAG([A, B, C, out]), TARGET)
    assert sk.vec_choices == {"matmul": ["j", "i"]}
    assert "matmul/A@i" in sk.pack_choices
    p = sk.default_params()
    p["vec"], p["pack"] = {"matmul": "i"}, {"matmul/A@i": True, "matmul/B": False}
    s, args, _ = apply_steps(sk.dag, sk.steps(p))
    a, b, c = _rand(n, l), _rand(l, m, seed=1), _rand(n, m, seed=2)
    o = np.zeros((n, m), "float32")
    for exact in (False, True):
        tepad.build(s, args, TARGET, exact_bounds=exact)(a, b, c, o)
        np.testing.assert_allclose(o, a @ b + c, rtol=1e-4, atol=1e-4)
