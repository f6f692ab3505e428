"""``te.hybrid.build``: a schedule written back as hybrid script source (``HybridModule``),
which runs as Python on numpy arrays and parses again into a HybridOp that builds."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.te.hybrid import script


@script
def scaled_outer(n, m, a, b):
    c = output_tensor((n, m), a.dtype)
    for i in range(n):
        for j in range(m):
            c[i, j] = a[i] * b[j] * 2.0
    return c


def _run(mod, args, out_shapes):
    outs = [tepad.nd.empty(s, "float32") for s in out_shapes]
    mod(*[tepad.nd.array(a) if isinstance(a, np.ndarray) else a for a in args], *outs)
    return [o.numpy() for o in outs]


def test_hybrid_stage_round_trip():
    n, m = te.size_var("n"), te.size_var("m")
    a = te.placeholder((n,), name="a")
    b = te.placeholder((m,), name="b")
    c = scaled_outer(n, m, a, b)
    s = te.create_schedule(c.op)
    h = te.hybrid.build(s, [n, m, a, b], [c])
    src = h.get_source()
    assert src.startswith("def hybrid_func(n, m, a, b):") and "output_tensor((n, m)" in src
    rng = np.random.default_rng(0)
    an = rng.standard_normal(5).astype("float32")
    bn = rng.standard_normal(7).astype("float32")
    np.testing.assert_allclose(h(5, 7, an, bn), np.outer(an, bn) * 2, rtol=1e-6)
    # parsed again with tensors: a HybridOp that builds and computes the same
    c2 = h(n, m, a, b)
    assert isinstance(c2.op, te.hybrid.HybridOp)
    s2 = te.create_schedule(c2.op)
    f = tepad.build(s2, [n, m, a, b, c2])
    (got,) = _run(f, [5, 7, an, bn], [(5, 7)])
    np.testing.assert_allclose(got, np.outer(an, bn) * 2, rtol=1e-6)


def test_compute_schedule_as_script():
    n = te.size_var("n")
    A = te.placeholder((n, 8), name="A")
    B = te.compute((n, 8), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, 8), lambda i, j: B[i, j] + tir.max(A[i, j], 0.5), name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], ii)
    s[C].parallel(io)
    jo, ji = s[C].split(C.op.axis[1], factor=4)
    s[C].vectorize(ji)
    h = te.hybrid.build(s, [n, A], C, name="two_stage")
    src = h.get_source()
    assert "def two_stage(n, A):" in src
    assert "parallel(" in src and "vectorize(4)" in src
    # B is realized one row at a time at C's loop: a (1, 8) allocation indexed from 0
    assert "B = allocate((1, 8), 'float32', 'global')" in src
    An = np.random.default_rng(1).standard_normal((10, 8)).astype("float32")
    want = An * 2 + np.maximum(An, 0.5)
    np.testing.assert_allclose(h(10, An), want, rtol=1e-6)
    C2 = h(n, A)
    f = tepad.build(te.create_schedule(C2.op), [n, A, C2])
    (got,) = _run(f, [10, An], [(10, 8)])
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_save_and_load(tmp_path):
    A = te.placeholder((6,), name="A")
    B = te.compute((6,), lambda i: A[i] + 1.0, name="B")
    h = te.hybrid.build(te.create_schedule(B.op), [A], [B])
    h.save(str(tmp_path / "plus_one"))
    h2 = te.hybrid.HybridModule()
    h2.load(str(tmp_path / "plus_one.py"))
    assert h2.name == "hybrid_func" and h2.get_source() == h.get_source()
    x = np.arange(6, dtype="float32")
    np.testing.assert_allclose(h2(x), x + 1)


def test_statement_without_hybrid_spelling_is_refused():
    A = te.placeholder((4,), name="A")
    B = te.extern((4,), [A], lambda ins, outs: tir.call_packed("my_copy", ins[0], outs[0]),
                  name="B")
    with pytest.raises(tepad.TepadError, match="hybrid.build: .*my_copy"):
        te.hybrid.build(te.create_schedule(B.op), [A], [B])
