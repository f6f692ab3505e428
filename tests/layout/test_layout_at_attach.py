"""transform_layout on a stage computed at an inner loop of its consumer.

The layout map applies to the region the stage realizes at its attach point (a local buffer
in the region's own coordinates); padding there follows RFC 0077 as for a root stage.
Every case is compared with the numpy oracle, with interval and with exact bounds.
"""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.fuzz.generator import Config, RandomSource
from tepad.fuzz.runner import run_source
from tepad.testing import reference
from tepad.tir import stmt as S

rng = np.random.default_rng(19)


def _realizes(f, name):
    out = []
    tir.post_order_visit(f.body, lambda n: out.append(n) if isinstance(n, S.BufferRealize)
                         and n.buffer.name == name else None)
    return out


def _check(s, args, inputs, exact):
    outs = [t for t in args if t not in inputs]
    mod = tepad.build(s, args, exact_bounds=exact, bounds_check=True)
    arrays = [inputs[t] if t in inputs else np.zeros([int(d) for d in t.shape], t.dtype)
              for t in args]
    mod(*arrays)
    for t, arr in zip(args, arrays):
        if t in outs:
            np.testing.assert_allclose(arr, reference(t, inputs), rtol=1e-5, atol=1e-5)


def _stencil(n, m):
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0 + 1.0, name="B")
    C = te.compute((n - 2, m), lambda i, j: B[i, j] + B[i + 1, j] + B[i + 2, j], name="C")
    return A, B, C


MAPS = [
    (lambda i, j: [j // 4, i, j % 4], 0.0),
    (lambda i, j: [j, i], None),
    (lambda i, j: [(i + 1) // 4, j, (i + 1) % 4], 0.0),
    (lambda i, j: [i // 2, j // 3, i % 2, j % 3], lambda *ax: tir.undef("float32")),
    (lambda i, j: [i, te.AXIS_SEPARATOR, j // 4, j % 4], None),
]


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("k", range(len(MAPS)))
@pytest.mark.parametrize("n,m,factor", [(20, 13, 4), (11, 7, 3), (9, 16, 8)])
def test_stencil_producer_with_a_layout_at_a_tile(exact, k, n, m, factor):
    A, B, C = _stencil(n, m)
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=factor)
    s[B].compute_at(s[C], io)
    mapping, pad = MAPS[k]
    s[B].transform_layout(mapping, pad_value=pad)
    _check(s, [A, C], {A: rng.standard_normal((n, m)).astype("float32")}, exact)


def test_local_buffer_has_the_layout_of_the_region():
    """B's region per tile is 6 x 13: stored as [j // 4, i, j % 4] it is 4 x 6 x 4, with the
    padding of a 13-wide row (j % 4 >= 1 in the last column block) written with 0."""
    A, B, C = _stencil(20, 13)
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], io)
    s[B].transform_layout(lambda i, j: [j // 4, i, j % 4], pad_value=0.0)
    f = tepad.lower(s, [A, C], flatten=False)["main"]
    (r,) = _realizes(f, "B")
    assert [int(x.min) for x in r.bounds] == [0, 0, 0]
    assert [int(x.extent) for x in r.bounds] == [4, 6, 4]
    assert "B[jo, i, ji] = T.float32(0.0)" in f.script()
    _check(s, [A, C], {A: rng.standard_normal((20, 13)).astype("float32")}, False)


@pytest.mark.parametrize("exact", [False, True])
def test_transform_before_compute_at_and_split_of_the_physical_loops(exact):
    A, B, C = _stencil(17, 10)
    s = te.create_schedule(C.op)
    ax = s[B].transform_layout(lambda i, j: [j // 4, i, j % 4], pad_value=0.0)
    s[B].split(ax[1], factor=2)
    io, ii = s[C].split(C.op.axis[0], factor=5)
    s[B].compute_at(s[C], io)
    _check(s, [A, C], {A: rng.standard_normal((17, 10)).astype("float32")}, exact)


@pytest.mark.parametrize("exact", [False, True])
def test_reduction_producer_with_a_padded_layout_at_a_tile(exact):
    A = te.placeholder((14, 9), name="A")
    k = te.reduce_axis((0, 9), name="k")
    B = te.compute((14,), lambda i: te.sum(A[i, k], axis=k), name="B")
    C = te.compute((12,), lambda i: B[i] * B[i + 2], name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=5)
    s[B].compute_at(s[C], io)
    s[B].transform_layout(lambda i: [i // 4, i % 4], pad_value=0.0)
    _check(s, [A, C], {A: rng.standard_normal((14, 9)).astype("float32")}, exact)


@pytest.mark.parametrize("exact", [False, True])
def test_chained_maps_and_inner_attach_point(exact):
    A, B, C = _stencil(16, 12)
    s = te.create_schedule(C.op)
    io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], 4, 5)
    s[B].compute_at(s[C], jo)
    s[B].transform_layout(lambda i, j: [j, i])
    s[B].transform_layout(lambda j, i: [j // 2, i, j % 2], pad_value=0.0)
    _check(s, [A, C], {A: rng.standard_normal((16, 12)).astype("float32")}, exact)


@pytest.mark.parametrize("exact", [False, True])
def test_symbolic_sizes(exact):
    n = te.var("n")
    A = te.placeholder((n, 6), name="A")
    B = te.compute((n, 6), lambda i, j: A[i, j] - 1.0, name="B")
    C = te.compute((n - 1, 6), lambda i, j: B[i, j] * B[i + 1, j], name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], io)
    s[B].transform_layout(lambda i, j: [j // 4, i, j % 4], pad_value=0.0)
    mod = tepad.build(s, [A, C], exact_bounds=exact, bounds_check=True)
    for size in (2, 5, 9, 13):
        a = rng.standard_normal((size, 6)).astype("float32")
        c = np.zeros((size - 1, 6), "float32")
        mod(a, c)
        np.testing.assert_allclose(c, reference(C, {A: a}), rtol=1e-5, atol=1e-5)


def test_region_without_a_constant_bound_computes_the_whole_tensor_in_its_layout():
    """Fuzz case heavy-attach:292: a symbolic-size region whose extent has no constant bound
    (it was refused "needs a region of bounded size"); the stage then computes its whole
    tensor at the attach point, in the tensor's layout."""
    cfg = Config(max_stages=4, illegal_rate=0, layout_percent=100)
    out = run_source(RandomSource("heavy-attach:292"), cfg, exact=True)
    assert out.status == "pass", (out.where, out.detail)
