"""tir.While in a GPU kernel run by the emulator (TEPAD_CUDA=emulate): each thread runs its
own while loop; a barrier inside a while loop whose condition depends on the thread is
refused (the emulator cannot split it into phases)."""
import numpy as np
import pytest

import tepad
from tepad import tir

from emulator_kernels import SYNC, emulate_cuda, func, launch

pytestmark = pytest.mark.usefixtures(emulate_cuda.__name__)


def collatz_kernel(n, threads, barrier=False):
    A = tir.decl_buffer((n,), "int32", "A")
    out = tir.decl_buffer((n,), "int32", "out")
    ib = tir.ir_builder.create()
    bx = launch(ib, "blockIdx.x", n // threads)
    tx = launch(ib, "threadIdx.x", threads)
    v = ib.allocate("int32", 1, "v", scope="local")
    k = ib.allocate("int32", 1, "k", scope="local")
    a, o = ib.buffer_ptr(A), ib.buffer_ptr(out)
    i = bx * threads + tx
    v[0] = a[i]
    k[0] = 0
    with ib.while_loop(v[0] > 1):
        with ib.if_scope(v[0] % 2 == 0):
            v[0] = v[0] // 2
        with ib.else_scope():
            v[0] = v[0] * 3 + 1
        k[0] = k[0] + 1
        if barrier:
            ib.emit(SYNC)
    o[i] = k[0]
    return func("collatz", [A, out], ib)


def _steps(v):
    k = 0
    while v > 1:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        k += 1
    return k


def test_per_thread_while_loops():
    mod = tepad.build(collatz_kernel(32, 8), target="cuda")
    a = np.arange(1, 33, dtype="int32") * 3
    out = np.zeros(32, "int32")
    mod(a, out)
    np.testing.assert_array_equal(out, [_steps(int(x)) for x in a])


def test_barrier_in_a_thread_dependent_while_is_refused():
    with pytest.raises(tepad.TepadError, match="while loop on the thread index"):
        tepad.build(collatz_kernel(32, 8, barrier=True), target="cuda")
