"""GPU schedules whose bound loops come from nested splits that do not divide (or whose
factor exceeds the piece they split), built for ``cuda`` and run through the emulator (race
check on), compared with numpy in both bound modes: every such split on the path from a
thread-bound loop to the root is guarded; rfactor of such a piece reduced across threads
(TVM's reduction tutorial) counts each element once; a cross-thread reduction whose bound
reduce loop is a nested piece stores its result outside the reduce loops."""
import numpy as np
import pytest

import tepad
from tepad import te

from emulator_kernels import emulate_cuda

pytestmark = pytest.mark.usefixtures(emulate_cuda.__name__)

RNG = np.random.default_rng(13)
MODES = [False, True]


def _run(s, args, inputs, exact):
    f = tepad.build(tepad.lower(s, args, exact_bounds=exact), target="cuda")
    dev = tepad.device("cuda", 0)
    arrays = [tepad.nd.array(x, dev) for x in inputs]
    out = tepad.nd.array(np.zeros([int(x) for x in args[-1].shape], args[-1].dtype), dev)
    f(*arrays, out)
    return out.numpy()


@pytest.mark.parametrize("exact", MODES)
@pytest.mark.parametrize("inner", [3, 16])
def test_thread_loop_from_a_nested_split(exact, inner):
    A = te.placeholder((10,), name="A")
    C = te.compute((10,), lambda i: A[i] + 1.0, name="C")
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=4)
    iio, iii = s[C].split(ii, factor=inner)
    s[C].bind(io, te.thread_axis("blockIdx.x"))
    s[C].bind(iii, te.thread_axis("threadIdx.x"))
    a = RNG.random(10, dtype=np.float32)
    np.testing.assert_allclose(_run(s, [A, C], [a], exact), a + 1)


@pytest.mark.parametrize("exact", MODES)
def test_cross_thread_reduction_over_a_nested_piece(exact):
    A = te.placeholder((3, 10), name="A")
    k = te.reduce_axis((0, 10), name="k")
    B = te.compute((3,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=4)
    kio, kii = s[B].split(ki, factor=3)       # 2 x 3 = 6 > 4
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].bind(kii, te.thread_axis("threadIdx.x"))
    a = RNG.random((3, 10), dtype=np.float32)
    np.testing.assert_allclose(_run(s, [A, B], [a], exact), a.sum(1), rtol=1e-5)


@pytest.mark.parametrize("exact", MODES)
@pytest.mark.parametrize("inner", [3, 5])
def test_rfactor_of_a_nested_piece_reduced_across_threads(exact, inner):
    A = te.placeholder((3, 10), "int32", name="A")
    k = te.reduce_axis((0, 10), name="k")
    B = te.compute((3,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(k, factor=4)
    kio, kii = s[B].split(ki, factor=inner)
    BF = s.rfactor(B, kii)
    tx = te.thread_axis("threadIdx.x")
    s[B].bind(s[B].op.reduce_axis[0], tx)
    s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
    s[B].bind(s[B].op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].set_store_predicate(tx.var.equal(0))
    a = RNG.integers(-50, 50, size=(3, 10)).astype("int32")
    np.testing.assert_array_equal(_run(s, [A, B], [a], exact), a.sum(1))


@pytest.mark.parametrize("exact", MODES)
def test_shared_tile_fetched_by_a_nested_thread_split(exact):
    A = te.placeholder((10,), name="A")
    C = te.compute((10,), lambda i: A[i] * 3.0, name="C")
    s = te.create_schedule(C.op)
    AS = s.cache_read(A, "shared", [C])
    io, ii = s[C].split(C.op.axis[0], factor=4)
    iio, iii = s[C].split(ii, factor=3)
    tx = te.thread_axis("threadIdx.x")
    s[C].bind(io, te.thread_axis("blockIdx.x"))
    s[C].bind(iii, tx)
    s[AS].compute_at(s[C], io)
    ao, ai = s[AS].split(s[AS].op.axis[0], factor=3)
    s[AS].bind(ai, tx)
    a = RNG.random(10, dtype=np.float32)
    np.testing.assert_allclose(_run(s, [A, C], [a], exact), a * 3)
