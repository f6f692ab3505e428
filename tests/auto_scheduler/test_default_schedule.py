"""default_schedule: the sketch rules with the target's analytical tile sizes, checked
against numpy on matmul, conv2d, a softmax and an elementwise chain, in both bound modes."""
import numpy as np
import pytest

import tepad
from tepad import auto_scheduler
from tepad.auto_scheduler import ComputeDAG, Sketch

from .workloads import conv2d_nchw, elementwise_chain, matmul_add, softmax

TARGET = tepad.target.Target("llvm")


def _run(s, args, arrays, exact_bounds=False):
    f = tepad.build(s, args, TARGET, exact_bounds=exact_bounds)
    f(*arrays)
    return arrays


def _conv_numpy(d, w, pad):
    dp = np.pad(d, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kh, kw = w.shape[2:]
    oh, ow = dp.shape[2] - kh + 1, dp.shape[3] - kw + 1
    out = np.zeros((d.shape[0], w.shape[0], oh, ow), "float32")
    for ry in range(kh):
        for rx in range(kw):
            out += np.einsum("nchw,fc->nfhw", dp[:, :, ry:ry + oh, rx:rx + ow], w[:, :, ry, rx])
    return out


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(size=shape).astype("float32")


@pytest.mark.parametrize("exact", [False, True])
def test_matmul_add(exact):
    A, B, C, out = matmul_add(48, 40, 24, "float32")
    s, args = auto_scheduler.default_schedule([out], TARGET)
    assert [t.op.name for t in args] == ["A", "B", "C", "out"]
    text = str(tepad.lower(s, args, simple_mode=True, exact_bounds=exact))
    assert "vectorized" in text and "parallel" in text
    assert "allocate" in text        # matmul is computed at out's tile (a local block)
    a, b, c = _rand(48, 40), _rand(40, 24, seed=1), _rand(48, 24, seed=2)
    o = np.zeros((48, 24), "float32")
    _run(s, args, [a, b, c, o], exact)
    np.testing.assert_allclose(o, a @ b + c, rtol=1e-5)


def test_conv2d():
    data, weight, conv = conv2d_nchw(1, 3, 10, 10, 8, 3, 3, 1)
    s, args = auto_scheduler.default_schedule(conv, TARGET)
    d, w = _rand(1, 3, 10, 10), _rand(8, 3, 3, 3, seed=1)
    o = np.zeros((1, 8, 10, 10), "float32")
    _run(s, args, [d, w, o])
    np.testing.assert_allclose(o, _conv_numpy(d, w, 1), rtol=1e-4)
    # the padding (a branch: not strictly inlinable) gets a compute location, by default
    # at conv's outer parallel loop; conv, an output, is tiled through a cache stage
    sk = Sketch(ComputeDAG(args), TARGET)
    assert ("flex", "pad", None) in sk.plan and ("tiled", "conv", ("conv", "cache")) in sk.plan
    assert sk.loc_choices["pad"] == ["at", "root", "inline"]


def test_softmax():
    x, out = softmax(12, 40)
    s, args = auto_scheduler.default_schedule(out, TARGET)
    xv = _rand(12, 40)
    o = np.zeros((12, 40), "float32")
    _run(s, args, [xv, o])
    e = np.exp(xv - xv.max(axis=1, keepdims=True))
    np.testing.assert_allclose(o, e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_elementwise_chain():
    a, b, out = elementwise_chain(16, 36)
    s, args = auto_scheduler.default_schedule(out, TARGET)
    kinds = [k for k, _, _ in Sketch(ComputeDAG(args), TARGET).plan]
    assert kinds == ["simple", "inline", "inline"]
    av, bv = _rand(16, 36), _rand(16, 36, seed=1)
    o = np.zeros((16, 36), "float32")
    _run(s, args, [av, bv, o])
    np.testing.assert_allclose(o, np.maximum(av * 2 + bv, 0.5) * bv, rtol=1e-6)


@pytest.mark.parametrize("target", ["llvm -mcpu=x86-64", "llvm -mcpu=haswell",
                                    "llvm -mcpu=skylake-avx512"])
def test_tiles_read_the_target(target):
    t = tepad.target.Target(target)
    A, B, C, out = matmul_add(64, 64, 64, "float32")
    sk = Sketch(ComputeDAG([A, B, C, out]), t)
    tile = sk.default_params()["tile"]
    lanes = t.vector_lanes("float32")
    assert tile["matmul/j"][3] in (lanes, 2 * lanes)  # one or two whole vectors
    assert tile["matmul/i"][3] * tile["matmul/j"][3] <= (t.vector_registers - 4) * lanes
    for _ in range(20):                              # drawn tiles fit the registers too
        p = sk.random_params(__import__("random").Random(_))
        assert p["tile"]["matmul/i"][3] * p["tile"]["matmul/j"][3] <= \
            t.vector_registers * lanes


def test_drawn_fused_states_in_both_bound_modes():
    import random
    A, B, C, out = matmul_add(24, 20, 32, "float32")
    dag = ComputeDAG([A, B, C, out])
    sk = Sketch(dag, TARGET)
    assert sk.plan == [("tiled", "matmul", ("out", "fuse"))]
    a, b, c = _rand(24, 20), _rand(20, 32, seed=1), _rand(24, 32, seed=2)
    rng = random.Random(5)
    for _ in range(3):
        state = sk.state(sk.random_params(rng))
        texts = []
        for exact in (False, True):
            s, args = dag.apply_steps_from_state(state)
            texts.append(str(tepad.lower(s, args, simple_mode=True, exact_bounds=exact)))
            o = np.zeros((24, 32), "float32")
            _run(s, args, [a, b, c, o], exact)
            np.testing.assert_allclose(o, a @ b + c, rtol=1e-5)
        assert all("allocate" in t for t in texts)


def test_drawn_states_in_both_bound_modes():
    import random
    data, weight, conv = conv2d_nchw(1, 4, 6, 6, 4, 3, 3, 1)
    dag = ComputeDAG([data, weight, conv])
    sk = Sketch(dag, TARGET)
    d, w = _rand(1, 4, 6, 6), _rand(4, 4, 3, 3, seed=1)
    ref = _conv_numpy(d, w, 1)
    rng = random.Random(3)
    for _ in range(3):
        params = sk.random_params(rng)
        for exact in (False, True):
            s, args = dag.apply_steps_from_state(sk.state(params))
            o = np.zeros((1, 4, 6, 6), "float32")
            _run(s, args, [d, w, o], exact)
            np.testing.assert_allclose(o, ref, rtol=1e-4)


def test_user_mistakes():
    with pytest.raises(tepad.TepadError, match="Tensor"):
        auto_scheduler.default_schedule("out")
    A, B, C, out = matmul_add(8, 8, 8, "float32")
    dag = ComputeDAG([A, B, C, out])
    with pytest.raises(tepad.TepadError, match="no stage 'nope'"):
        dag.apply_steps_from_state(auto_scheduler.State([["CI", "nope"]]))
    assert ComputeDAG([A, B, C, out]).workload_key() == \
        ComputeDAG(list(matmul_add(8, 8, 8, "float32"))).workload_key()
    with pytest.raises(tepad.TepadError, match="no loop 'q'"):
        dag.apply_steps_from_state(auto_scheduler.State([["SP", "out", "q", [2]]]))


def test_mutation_and_crossover_keep_extents_and_registers():
    import math
    import random
    data, weight, conv = conv2d_nchw(1, 4, 6, 6, 8, 3, 3, 1)
    sk = Sketch(ComputeDAG([data, weight, conv]), TARGET)
    rng = random.Random(11)
    bound = TARGET.vector_registers * TARGET.vector_lanes("float32")
    for _ in range(30):
        a, b = sk.random_params(rng), sk.random_params(rng)
        children = [sk.mutate(a, rng), sk.crossover(a, b, rng)]
        for child in filter(None, children):
            for key, (extent, levels) in sk.tile_keys.items():
                assert len(child["tile"][key]) == levels
                assert math.prod(child["tile"][key]) == extent
            block = math.prod(child["tile"][f"conv/{ax}"][3] for ax in ("b", "ff", "y", "x"))
            assert block <= bound
        child = children[1]
        if child is not None:
            assert all(child["tile"][k] in (a["tile"][k], b["tile"][k]) for k in sk.tile_keys)


def test_printed_code_of_a_cache_write_state_replays():
    import random
    from tepad import te
    data, weight, conv = conv2d_nchw(1, 4, 6, 6, 8, 3, 3, 1)
    dag = ComputeDAG([data, weight, conv])
    sk = Sketch(dag, TARGET)
    state = sk.state(sk.random_params(random.Random(2)))
    code = dag.print_python_code_from_state(state)
    assert 'conv_local = s.cache_write(conv, \'local\')' in code
    scope = {"te": te, "data": data, "weight": weight, "conv": conv,
             "pad": conv.op.input_tensors[0]}
    exec(code, scope)  # noqa: S102
    s, args = dag.apply_steps_from_state(state)
    assert str(tepad.lower(scope["s"], [data, weight, conv], simple_mode=True)) == \
        str(tepad.lower(s, args, simple_mode=True))
