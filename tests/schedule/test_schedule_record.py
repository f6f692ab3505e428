"""The schedule record (PassContext config ``te.keep_schedule_record``): a copy of the
schedule after its creation and after every primitive, each a schedule of its own that
lowers and computes the same values."""
import numpy as np

import tepad
from tepad import te


def _matmul(n=32):
    k = te.reduce_axis((0, n), "k")
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return A, B, C, k


def test_nothing_is_recorded_by_default():
    A, B, C, k = _matmul()
    s = te.create_schedule(C.op)
    s[C].split(C.op.axis[0], factor=4)
    assert len(s.schedule_record) == 0 and len(s.primitive_record) == 0


def test_each_primitive_leaves_a_runnable_copy():
    with tepad.transform.PassContext(config={"te.keep_schedule_record": True}):
        A, B, C, k = _matmul()
        s = te.create_schedule(C.op)
        io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], 8, 8)   # split, split, reorder
        ko, ki = s[C].split(k, factor=4)
        s[C].reorder(io, ko, jo, ii, ki, ji)
        s[C].vectorize(ji)
        s[C].parallel(io)
        AA = s.cache_read(A, "global", [C])
    assert s.primitive_record == ["vanilla", "split", "split", "reorder", "split", "reorder",
                                  "vectorize", "parallel", "cache_read"]
    assert len(s.schedule_record) == len(s.primitive_record)
    # each copy is frozen at its step: the vanilla one has C's two root loops only
    assert len(s.schedule_record[0][C].leaf_iter_vars) == 3
    assert len(s.schedule_record[4][C].leaf_iter_vars) == 6
    assert AA.op not in s.schedule_record[7].stage_map
    assert AA.op in s.schedule_record[8].stage_map
    rng = np.random.default_rng(1)
    a = rng.standard_normal((32, 32)).astype("float32")
    b = rng.standard_normal((32, 32)).astype("float32")
    for step in (0, 3, 8):
        sch = s.schedule_record[step]
        f = tepad.build(sch, [A, B, sch.outputs[0].output(0)])
        c = tepad.nd.empty((32, 32), "float32")
        f(tepad.nd.array(a), tepad.nd.array(b), c)
        np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)


def test_a_schedule_without_stages_records_its_creation():
    with tepad.transform.PassContext(config={"te.keep_schedule_record": True}):
        s = te.create_schedule([])
    assert s.primitive_record == ["vanilla"]
