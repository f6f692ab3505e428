"""``tepad.lower`` returns what TVM's lower returns: buffers flattened to one index per axis
group (RFC 0039's axis separators), and ``flatten=False`` keeps the N-d realize form."""
import itertools

import numpy as np
import pytest

import tepad
from tepad import te, tir

SHAPE = (2, 3, 4)
LAYOUTS = {
    "1d": None,
    "2d": lambda i, j, k: [i, j, te.AXIS_SEPARATOR, k],
    "2d_rev": lambda i, j, k: [k, j, te.AXIS_SEPARATOR, i],
    "3d": lambda i, j, k: [i, te.AXIS_SEPARATOR, j, te.AXIS_SEPARATOR, k],
}


def physical_indices(name, i, j, k):
    """The indices TVM's lower gives an access at logical (i, j, k), per layout."""
    return {"1d": [i * 12 + j * 4 + k], "2d": [i * 3 + j, k], "2d_rev": [k * 3 + j, i],
            "3d": [i, j, k]}[name]


@pytest.mark.parametrize("la,lb", list(itertools.product(LAYOUTS, LAYOUTS)))
def test_each_access_has_one_index_per_axis_group(la, lb):
    A = te.placeholder(SHAPE, "int32", name="A")
    B = te.compute(SHAPE, lambda i, j, k: A[i, j, k], name="B")
    s = te.create_schedule(B.op)
    for t, name in ((A, la), (B, lb)):
        if LAYOUTS[name]:
            s[t].transform_layout(LAYOUTS[name])
    f = tepad.lower(s, [A, B])["main"]
    loops = {}
    tir.post_order_visit(f.body, lambda n: loops.__setitem__(n.extent.value, n.loop_var)
                         if isinstance(n, tir.For) else None)
    i, j, k = loops[2], loops[3], loops[4]
    want = {"A": physical_indices(la, i, j, k), "B": physical_indices(lb, i, j, k)}
    seen = []

    def check(n):
        if isinstance(n, (tir.BufferLoad, tir.BufferStore)):
            seen.append(n.buffer.name)
            tepad.ir.assert_structural_equal(list(n.indices), want[n.buffer.name])
    tir.post_order_visit(f.body, check)
    assert sorted(seen) == ["A", "B"]


def test_flatten_false_keeps_realize_regions_and_builds_the_same():
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((16,), lambda i: B[i] + 1.0, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], xo)
    nd = tepad.lower(s, [A, C], flatten=False)["main"]
    flat = tepad.lower(s, [A, C])["main"]
    kinds = lambda f: {type(n).__name__ for n in _nodes(f)}   # noqa: E731
    assert "BufferRealize" in kinds(nd) and "Allocate" not in kinds(nd)
    assert "BufferRealize" not in kinds(flat) and "Allocate" in kinds(flat)
    a = np.random.default_rng(0).random(16, dtype="float32")
    for f in (nd, flat):
        c = np.zeros(16, "float32")
        tepad.build(f)(a, c)
        np.testing.assert_allclose(c, a * 2.0 + 1.0, rtol=1e-6)


def _nodes(f):
    out = []
    tir.post_order_visit(f.body, out.append)
    return out
