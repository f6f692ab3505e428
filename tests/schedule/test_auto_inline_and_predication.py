"""te.schedule.AutoInline{ElemWise,Broadcast,Injective} and split(disable_predication=True)."""
import numpy as np

import tepad
from tepad import te, tir
from tepad.schedule import AttachType


def two_stage(kind):
    m, n = 5, 7
    B = te.placeholder((m, n), name="B")
    C = te.placeholder((m, n), name="C")
    if kind == "elemwise":
        A = te.placeholder((m, n), name="A")
        T1 = te.compute((m, n), lambda i, j: A[i, j] * B[i, j], name="T1")
        ref = lambda a, b, c: a * b + c          # noqa: E731
    elif kind == "broadcast":
        A = te.placeholder((1,), name="A")
        T1 = te.compute((m, n), lambda i, j: A[0] * B[i, j], name="T1", tag="broadcast")
        ref = lambda a, b, c: a[0] * b + c       # noqa: E731
    else:
        A = te.placeholder((m,), name="A")
        T1 = te.compute((m, n), lambda i, j: A[i] * B[i, j], name="T1")
        ref = lambda a, b, c: a[:, None] * b + c  # noqa: E731
    T2 = te.compute((m, n), lambda i, j: T1[i, j] + C[i, j], name="T2")
    return (A, B, C, T2), T1, ref


def run(s, args, ref):
    A, B, C, T2 = args
    a = np.random.rand(*[int(d) for d in A.shape]).astype("float32")
    b = np.random.rand(5, 7).astype("float32")
    c = np.random.rand(5, 7).astype("float32")
    out = np.empty((5, 7), "float32")
    tepad.build(s, list(args))(a, b, c, out)
    np.testing.assert_allclose(out, ref(a, b, c), rtol=1e-6)


def test_auto_inline_variants():
    cases = [("elemwise", te.schedule.AutoInlineElemWise, ["elemwise"]),
             ("broadcast", te.schedule.AutoInlineBroadcast,
              ["elemwise", "broadcast", "injective"]),
             ("injective", te.schedule.AutoInlineInjective,
              ["elemwise", "broadcast", "injective"])]
    for name, fn, inlines in cases:
        for kind in ("elemwise", "broadcast", "injective"):
            args, T1, ref = two_stage(kind)
            s = te.create_schedule(args[-1].op)
            assert s[T1].attach_type == AttachType.GroupRoot
            fn(s)
            want = AttachType.Inline if kind in inlines else AttachType.GroupRoot
            assert s[T1].attach_type == want, (name, kind)
            run(s, args, ref)


def test_auto_inline_leaves_scheduled_stages_and_outputs():
    args, T1, ref = two_stage("injective")
    s = te.create_schedule(args[-1].op)
    s[T1].split(T1.op.axis[0], factor=2)
    te.schedule.AutoInlineInjective(s)
    assert s[T1].attach_type == AttachType.GroupRoot
    assert s[args[-1]].attach_type == AttachType.GroupRoot
    run(s, args, ref)


def _guards(f):
    out = []
    tir.post_order_visit(f.body, lambda x: out.append(x) if isinstance(x, tir.IfThenElse)
                         else None)
    return out


def test_disable_predication_is_recorded_and_exact_splits_stay_unguarded():
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=4, disable_predication=True)
    assert s[B].relations[0].disable_predication
    assert not _guards(tepad.lower(s, [A, B])["main"])


def test_disable_predication_keeps_the_guard_of_a_non_dividing_split():
    # TVM would overcompute B[10], B[11]; tepad keeps the guard so nothing is written past B
    A = te.placeholder((10,), name="A")
    B = te.compute((10,), lambda i: A[i] * 3.0, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=4, disable_predication=True)
    assert _guards(tepad.lower(s, [A, B])["main"])
    a = np.random.rand(10).astype("float32")
    b = np.empty(10, "float32")
    tepad.build(s, [A, B], bounds_check=True)(a, b)
    np.testing.assert_allclose(b, a * 3, rtol=1e-6)
