"""The packing rule: a tiled stage's reused input walked by the vectorized loop (``B[k, j]``
of a matmul) copied at the root into ``[.., j / bn, k, j % bn]`` panels by a ``cache_read``
and ``transform_layout`` (the ``TL`` step); checked against numpy in both bound modes, with
the layout asserted in the lowered IR."""
import random

import numpy as np
import pytest

import tepad
from tepad import auto_scheduler, te
from tepad.auto_scheduler import ComputeDAG, Sketch
from tepad.auto_scheduler.loop_state import apply_steps

from .workloads import conv2d_nchw, matmul_add

TARGET = tepad.target.Target("llvm")


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape).astype("float32")


def _batch_matmul(b, n, l, m):
    A = te.placeholder((b, n, l), "float32", name="A")
    B = te.placeholder((b, l, m), "float32", name="B")
    k = te.reduce_axis((0, l), name="k")
    out = te.compute((b, n, m), lambda z, i, j: te.sum(A[z, i, k] * B[z, k, j], axis=k),
                     name="bmm")
    return [A, B, out]


def _check_matmul(s, args, n, l, m, exact):
    a, b, c = _rand(n, l), _rand(l, m, seed=1), _rand(n, m, seed=2)
    o = np.zeros((n, m), "float32")
    tepad.build(s, args, TARGET, exact_bounds=exact)(a, b, c, o)
    np.testing.assert_allclose(o, a @ b + c, rtol=1e-4, atol=1e-4)


def test_matmul_has_one_pack_choice_for_b():
    sk = Sketch(ComputeDAG(matmul_add(64, 48, 64, "float32")), TARGET)
    assert sorted(sk.pack_choices) == ["matmul/B"]      # A[i, k]: its last index is k
    info = sk.pack_choices["matmul/B"]
    assert (info["tensor"], info["name"], info["reuse"]) == ("B", "B.pack", 64)
    assert sk.pack_layout("matmul/B", 16) == (["1/16", "0", "1%16"], ["ax1", "ax0", "ax2"])


@pytest.mark.parametrize("exact", [False, True])
def test_default_schedule_packs_b(exact):
    n, l, m = 64, 48, 96
    s, args = auto_scheduler.default_schedule(matmul_add(n, l, m, "float32")[-1], TARGET)
    sk = Sketch(ComputeDAG(args), TARGET)
    p = sk.default_params()
    assert p["pack"] == {"matmul/B": True}
    bn = p["tile"]["matmul/j"][3]
    text = str(tepad.lower(s, args, simple_mode=True, exact_bounds=exact))
    # B is copied once, at the root, before the tiles, panel-major:
    # B_global[j // bn, k, j % bn] = B[k, j], the j % bn loop vectorized
    head = text.split("matmul = T.allocate", 1)[0]
    assert f"B_global = T.allocate([{l * m}]" in head
    assert f"for ax2 in T.vectorized({bn}):" in head
    assert f"* {l * bn}" in head.split("B_global[")[-1].split("]")[0]
    _check_matmul(s, args, n, l, m, exact)


def test_pack_reads_the_panel_contiguously():
    n = l = m = 32
    sk = Sketch(ComputeDAG(matmul_add(n, l, m, "float32")), TARGET)
    p = sk.default_params()
    p["tile"]["matmul/j"] = [1, 2, 1, 16]
    p["pack"] = {"matmul/B": True}
    s, args, _ = apply_steps(sk.dag, sk.steps(p))
    text = str(tepad.lower(s, args, simple_mode=True))
    # the inner product reads B_global[jo * (16 * 32) + k * 16 + ji]: unit stride in ji and
    # 16 values per k, where B itself is 32 values per k
    line = next(ln for ln in text.splitlines() if "matmul[" in ln and "B_global[" in ln)
    idx = line.split("B_global[", 1)[1].split("]", 1)[0]
    assert "* 512" in idx and "* 16" in idx, idx
    _check_matmul(s, args, n, l, m, False)


@pytest.mark.parametrize("exact", [False, True])
def test_random_packed_states_match_numpy(exact):
    n, l, m = 24, 20, 40
    sk = Sketch(ComputeDAG(matmul_add(n, l, m, "float32")), TARGET)
    rng = random.Random(3)
    packed = 0
    for _ in range(6):
        p = sk.random_params(rng)
        p["pack"] = {"matmul/B": True}
        packed += 1
        s, args, _ = apply_steps(sk.dag, sk.steps(p))
        _check_matmul(s, args, n, l, m, exact)
    assert packed == 6


@pytest.mark.parametrize("exact", [False, True])
def test_batch_matmul_pack_keeps_the_batch_outer(exact):
    b, n, l, m = 2, 16, 12, 64
    tensors = _batch_matmul(b, n, l, m)
    sk = Sketch(ComputeDAG(tensors), TARGET)
    assert sorted(sk.pack_choices) == ["bmm/B"]
    assert sk.pack_layout("bmm/B", 8) == (["0", "2/8", "1", "2%8"],
                                          ["ax0", "ax2", "ax1", "ax3"])
    p = sk.default_params()
    assert p["pack"]["bmm/B"] is True       # B is reused across the 16 rows i
    s, args, _ = apply_steps(sk.dag, sk.steps(p))
    x, y = _rand(b, n, l), _rand(b, l, m, seed=1)
    o = np.zeros((b, n, m), "float32")
    tepad.build(s, args, TARGET, exact_bounds=exact)(x, y, o)
    np.testing.assert_allclose(o, x @ y, rtol=1e-4, atol=1e-4)


def test_no_pack_without_reuse_or_a_vector_axis():
    # a conv's weight is indexed by the reduction loops last: its only pack choice is for
    # the output channels as the vector axis
    sk = Sketch(ComputeDAG(list(conv2d_nchw(1, 3, 10, 10, 8, 3, 3, 1))), TARGET)
    assert sorted(sk.pack_choices) == ["conv/weight@ff"]
    assert sk.vec_choices == {"conv": ["x", "ff"]}
    # a matmul whose row is whole vectors keeps j as its only vector axis: A is not packed
    lanes = TARGET.vector_lanes("float32")
    sk = Sketch(ComputeDAG(matmul_add(8, 16, 2 * lanes, "float32")), TARGET)
    assert sorted(sk.pack_choices) == ["matmul/B"] and sk.vec_choices == {"matmul": ["j"]}
    # one row: B is not reused across i, so the default does not pack it
    sk = Sketch(ComputeDAG(matmul_add(1, 64, 64, "float32")), TARGET)
    assert sk.default_params().get("pack", {}).get("matmul/B") in (None, False)


def test_params_without_pack_replay_unpacked_and_mutation_flips_it():
    sk = Sketch(ComputeDAG(matmul_add(32, 32, 64, "float32")), TARGET)
    p = sk.default_params()
    old = {k: v for k, v in p.items() if k != "pack"}       # a state from an older log
    assert not any(st[0] in ("CHR", "TL") for st in sk.steps(old))
    assert any(st[0] == "TL" for st in sk.steps(p))
    rng = random.Random(0)
    seen = {sk.mutate(p, rng)["pack"]["matmul/B"] for _ in range(60)}
    assert seen == {True, False}
    child = sk.crossover(p, dict(p, pack={"matmul/B": False}), random.Random(1))
    assert set(child["pack"]) == {"matmul/B"}


def test_printed_code_and_replay_lower_alike():
    tensors = matmul_add(32, 24, 64, "float32")
    dag = ComputeDAG(tensors)
    sk = Sketch(dag, TARGET)
    state = sk.state(sk.default_params())
    code = dag.print_python_code_from_state(state)
    assert "transform_layout(lambda i0, i1: [i1 // " in code
    A, B, C, out = tensors
    ns = {"te": te, "A": A, "B": B, "C": C, "out": out,
          "matmul": out.op.input_tensors[0]}
    exec(code, ns)                                          # noqa: S102 - our own code
    replay, args = dag.apply_steps_from_state(state)
    assert str(tepad.lower(ns["s"], args, simple_mode=True)) == \
        str(tepad.lower(replay, args, simple_mode=True))


@pytest.mark.parametrize("layout", [["0", "1"], ["1/4", "0"], ["1/4", "0", "1%8"],
                                    ["2", "0", "1"], ["0", "0", "1"], ["x"], []])
def test_bad_layout_step_raises(layout):
    tensors = matmul_add(8, 8, 8, "float32")
    dag = ComputeDAG(tensors)
    steps = [["CHR", "B", "global", ["matmul"], "B.pack"], ["TL", "B.pack", layout]]
    if layout == ["0", "1"]:                                # the identity is valid
        apply_steps(dag, steps)
        return
    with pytest.raises(tepad.TepadError, match="layout"):
        apply_steps(dag, steps)


@pytest.mark.parametrize("exact", [False, True])
def test_two_stages_packing_one_input_get_their_own_copies(exact):
    n = 32
    A1 = te.placeholder((n, n), "float32", name="A1")
    A2 = te.placeholder((n, n), "float32", name="A2")
    B = te.placeholder((n, n), "float32", name="B")
    k1 = te.reduce_axis((0, n), name="k1")
    k2 = te.reduce_axis((0, n), name="k2")
    C1 = te.compute((n, n), lambda i, j: te.sum(A1[i, k1] * B[k1, j], axis=k1), name="C1")
    C2 = te.compute((n, n), lambda i, j: te.sum(A2[i, k2] * B[k2, j], axis=k2), name="C2")
    sk = Sketch(ComputeDAG([A1, A2, B, C1, C2]), TARGET)
    assert sorted(info["name"] for info in sk.pack_choices.values()) == ["B.pack.C1",
                                                                          "B.pack.C2"]
    p = sk.default_params()
    for key in p["tile"]:
        if key.endswith("/j"):
            p["tile"][key] = [2, 1, 1, 16]
    p["pack"] = {k: True for k in sk.pack_choices}
    s, args, _ = apply_steps(sk.dag, sk.steps(p))
    a1, a2, b = _rand(n, n), _rand(n, n, seed=1), _rand(n, n, seed=2)
    o1, o2 = np.zeros((n, n), "float32"), np.zeros((n, n), "float32")
    tepad.build(s, args, TARGET, exact_bounds=exact)(a1, a2, b, o1, o2)
    np.testing.assert_allclose(o1, a1 @ b, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(o2, a2 @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("exact", [False, True])
def test_pack_of_a_stage_tiled_at_the_root(exact):
    # the matmul feeds a row sum (not an elementwise consumer): tiled by itself ("plain")
    n, l, m = 16, 24, 64
    A = te.placeholder((n, l), "float32", name="A")
    B = te.placeholder((l, m), "float32", name="B")
    k = te.reduce_axis((0, l), name="k")
    mm = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="mm")
    r = te.reduce_axis((0, m), name="r")
    rs = te.compute((n,), lambda i: te.sum(mm[i, r], axis=r), name="rs")
    sk = Sketch(ComputeDAG([A, B, rs]), TARGET)
    assert ("tiled", "mm", ("mm", "plain")) in sk.plan and "mm/B" in sk.pack_choices
    p = sk.default_params()
    p["tile"]["mm/j"] = [2, 2, 1, 16]
    p["pack"] = {"mm/B": True}
    steps = sk.steps(p)
    assert ["TL", "B.pack", ["1/16", "0", "1%16"]] in steps
    s, args, _ = apply_steps(sk.dag, steps)
    a, b = _rand(n, l), _rand(l, m, seed=1)
    o = np.zeros((n,), "float32")
    tepad.build(s, args, TARGET, exact_bounds=exact)(a, b, o)
    np.testing.assert_allclose(o, (a @ b).sum(axis=1), rtol=1e-4, atol=1e-4)
