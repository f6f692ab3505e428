"""Ragged register blocks: under a 16-register target a tiled stage's last loop may be tiled
by a width that does not divide it (``params["wide"]``: 4 rows x 3 vectors, the expert's AVX2
block), the last tile partial and the packed panel padded; checked against numpy in both
bound modes under forced targets, with the panel and the guard asserted in the lowered IR."""
import random

import numpy as np
import pytest

import tepad
from tepad import TepadError, auto_scheduler
from tepad.auto_scheduler import ComputeDAG, Sketch
from tepad.auto_scheduler.loop_state import apply_steps

from .workloads import matmul_add

HASWELL = tepad.target.Target("llvm -mcpu=haswell")       # 8 lanes, 16 registers
SSE = tepad.target.Target("llvm -mcpu=x86-64")            # 4 lanes, 16 registers


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape).astype("float32")


def _check(s, args, n, l, m, target, exact):
    a, b, c = _rand(n, l), _rand(l, m, seed=1), _rand(n, m, seed=2)
    o = np.zeros((n, m), "float32")
    tepad.build(s, args, target, exact_bounds=exact)(a, b, c, o)
    np.testing.assert_allclose(o, a @ b + c, rtol=1e-4, atol=1e-4)


def test_widths_follow_the_target():
    tensors = matmul_add(16, 8, 64, "float32")
    assert Sketch(ComputeDAG(tensors), HASWELL).wide_choices == {"matmul": [24]}
    assert Sketch(ComputeDAG(tensors), SSE).wide_choices == {"matmul": [12]}
    avx512 = tepad.target.Target("llvm -mcpu=skylake-avx512")
    assert avx512.vector_registers >= 32
    assert Sketch(ComputeDAG(tensors), avx512).wide_choices == {}


@pytest.mark.parametrize("exact", [False, True])
def test_default_takes_three_vectors_with_a_padded_panel(exact):
    # 376 columns (47 vectors): 16 panels of 24 waste 8 columns; 4 rows x 3 vectors = 12
    # accumulators beat the dividing block (one vector x 8 rows)
    n, l, m = 16, 8, 376
    tensors = matmul_add(n, l, m, "float32")
    sk = Sketch(ComputeDAG(tensors), HASWELL)
    p = sk.default_params()
    assert p["wide"] == {"matmul": 24} and p["pack"] == {"matmul/B": True}
    assert p["tile"]["matmul/i"][3] == 4
    assert sk.effective_tile(p)["matmul/j"] == [16, 1, 1, 24]
    s, args = auto_scheduler.default_schedule(tensors[-1], HASWELL)
    text = str(tepad.lower(s, args, simple_mode=True, exact_bounds=exact))
    head = text.split("matmul = T.allocate", 1)[0].split("matmul_local = T.allocate", 1)[0]
    assert f"B_global = T.allocate([{16 * 24 * l}]" in head       # padded panels
    assert "for ax2 in T.vectorized(24):" in head
    assert "T.likely(" in head                                     # the copy stops at m
    _check(s, args, n, l, m, HASWELL, exact)


@pytest.mark.parametrize("target", [HASWELL, SSE], ids=["haswell", "x86-64"])
@pytest.mark.parametrize("exact", [False, True])
def test_random_ragged_states_match_numpy(target, exact):
    n, l, m = 12, 10, 40
    sk = Sketch(ComputeDAG(matmul_add(n, l, m, "float32")), target)
    widths = sk.wide_choices["matmul"]
    assert widths
    rng = random.Random(2)
    for i in range(4):
        p = sk.random_params(rng)
        p["wide"] = {"matmul": widths[i % len(widths)]}
        p["pack"] = {"matmul/B": i % 2 == 0}
        if not sk._register_ok(p["tile"], p):
            p["tile"]["matmul/i"] = [n, 1, 1, 1]
        s, args, _ = apply_steps(sk.dag, sk.steps(p))
        _check(s, args, n, l, m, target, exact)


def test_search_operators_cover_the_width_and_keep_the_register_bound():
    sk = Sketch(ComputeDAG(matmul_add(16, 8, 40, "float32")), HASWELL)
    rng = random.Random(0)
    assert {sk.random_params(rng)["wide"]["matmul"] for _ in range(40)} == {0, 16, 24, 32}
    p = sk.default_params()
    for _ in range(80):
        q = sk.mutate(p, rng)
        assert sk._register_ok(q["tile"], q)
        c = sk.crossover(p, q, rng)
        assert c is None or sk._register_ok(c["tile"], c)
        p = q
    with pytest.raises(TepadError, match="no ragged width 20"):
        sk.steps(dict(p, wide={"matmul": 20}))
