"""Data-dependent indices are checked by default: a gather or scatter whose index (read from
memory) is outside its tensor raises TepadError naming the tensor, the index expression, its
value and the valid range; nothing out of bounds is read or written, the process never
crashes. ``index_check=False`` removes the checks; affine accesses are never checked."""
import os

import numpy as np
import pytest

import tepad
from tepad import TepadError, te, tir
from tepad.lower.pass_context import PassContext
from tepad.lower.pipeline import Options, lower_for_codegen
from tepad.tir import AssertStmt, BufferStore, For, ForKind, PrimFunc, Var, decl_buffer
from tepad.lower.passes.instrument_bound_checks import instrument_index_checks


def _asserts(f):
    found = []
    tir.post_order_visit(f.body, lambda x: found.append(x) if isinstance(x, AssertStmt) else None)
    return found


def _gather(n=100, m=64, vector=False):
    A = te.placeholder((n,), "float32", name="A")
    I = te.placeholder((m,), "int32", name="I")
    B = te.compute((m,), lambda i: A[I[i]], name="B")
    s = te.create_schedule(B.op)
    if vector:
        s[B].vectorize(B.op.axis[0])
    return s, [A, I, B]


def _data(n=100, m=64):
    rng = np.random.default_rng(0)
    return (rng.random(n, dtype="float32"), rng.integers(0, n, m, dtype="int32"),
            np.zeros(m, "float32"))


@pytest.mark.parametrize("vector", [False, True], ids=["scalar", "vectorized"])
@pytest.mark.parametrize("bad", [10 ** 8, 100, -1, -(2 ** 31)])
def test_gather_with_a_bad_index_raises(vector, bad):
    mod = tepad.build(*_gather(vector=vector))
    a, idx, b = _data()
    mod(a, idx, b)
    np.testing.assert_array_equal(b, a[idx])
    idx[37] = bad
    with pytest.raises(TepadError, match=rf"index check failed: load of tensor A at index "
                                         rf"I\[.*\] = {bad}, outside the valid range \[0, 100\)"):
        mod(a, idx, b)
    idx[37] = 99                 # the module stays usable
    mod(a, idx, b)
    np.testing.assert_array_equal(b, a[idx])


def test_two_dimensional_gathers():
    A = te.placeholder((30, 40), "float32", name="A")
    I = te.placeholder((50,), "int32", name="I")
    J = te.placeholder((50,), "int32", name="J")
    B = te.compute((50,), lambda i: A[I[i], J[i]], name="B")
    R = te.compute((50, 40), lambda i, j: A[I[i], j], name="R")
    s = te.create_schedule([B.op, R.op])
    s[R].vectorize(R.op.axis[1])
    mod = tepad.build(s, [A, I, J, B, R])
    rng = np.random.default_rng(1)
    a = rng.random((30, 40), dtype="float32")
    ii, jj = rng.integers(0, 30, 50, dtype="int32"), rng.integers(0, 40, 50, dtype="int32")
    b, r = np.zeros(50, "float32"), np.zeros((50, 40), "float32")
    mod(a, ii, jj, b, r)
    np.testing.assert_array_equal(b, a[ii, jj])
    np.testing.assert_array_equal(r, a[ii])
    # the check is on the flattened index (what memory is touched): every pair below leaves
    # the tensor's 1200 elements
    for i_val, j_val in ((30, 0), (-1, 5), (29, 40), (0, -1), (10 ** 6, 10 ** 6)):
        bi, bj = ii.copy(), jj.copy()
        bi[7], bj[7] = i_val, j_val
        with pytest.raises(TepadError, match=r"index check failed: load of tensor A at index "
                                             r".*outside the valid range \[0, 1200\)"):
            mod(a, bi, bj, b, r)


def _scatter(n=16):
    """``C[I[i]] = A[i]`` built by hand (te.compute cannot scatter)."""
    A, I, C = (decl_buffer((n,), "float32", "A"), decl_buffer((n,), "int32", "I"),
               decl_buffer((n,), "float32", "C"))
    params = [Var("A", "handle"), Var("I", "handle"), Var("C", "handle")]
    i = Var("i")
    body = For(i, 0, n, ForKind.SERIAL, BufferStore(C, A[i], [I[i]]))
    return PrimFunc(params, body, dict(zip(params, (A, I, C))), {"global_symbol": "scatter"})


def test_scatter_is_checked_before_the_store():
    f = _scatter()
    g = lower_for_codegen(f)
    (check,) = _asserts(g)
    assert isinstance(check.body, BufferStore)        # the check guards the store itself
    mod = tepad.build(f)
    a = np.arange(16, dtype="float32")
    perm = np.random.default_rng(2).permutation(16).astype("int32")
    c = np.zeros(16, "float32")
    mod(a, perm, c)
    np.testing.assert_array_equal(c[perm], a)
    perm[0] = 16
    c[:] = -5.0
    with pytest.raises(TepadError, match=r"store of tensor C at index I\[i\] = 16, outside "
                                         r"the valid range \[0, 16\)"):
        mod(a, perm, c)
    assert (c == -5.0).all()              # the first iteration failed: nothing was written


def test_index_produced_by_an_extern_stage():
    def triple(ins, outs):
        ib = tir.ir_builder.create()
        with ib.for_range(0, 8, name="k") as k:
            ib.emit(outs[0].vstore((k,), ins[0].vload((k,)) * 3))
        return ib.get()
    A = te.placeholder((20,), "float32", name="A")
    X = te.placeholder((8,), "int32", name="X")
    I = te.extern((8,), [X], triple, name="I", dtype="int32")
    B = te.compute((8,), lambda i: A[I[i]], name="B")
    mod = tepad.build(te.create_schedule(B.op), [A, X, B])
    a = np.arange(20, dtype="float32") + 0.5
    x = np.array([0, 1, 2, 3, 4, 5, 6, 2], "int32")
    b = np.zeros(8, "float32")
    mod(a, x, b)
    np.testing.assert_array_equal(b, a[x * 3])
    x[6] = 7                                          # 21: past A
    with pytest.raises(TepadError, match=r"load of tensor A at index I\[i\] = 21, outside "
                                         r"the valid range \[0, 20\)"):
        mod(a, x, b)


def test_index_check_false_and_the_config_key_remove_the_checks():
    s, args = _gather()
    assert _asserts(lower_for_codegen(s, args))
    assert not _asserts(lower_for_codegen(s, args, opts=Options(index_check=False)))
    with PassContext(config={"tepad.index_check": False}):
        assert not Options.from_context().index_check
        mod = tepad.build(s, args)
    assert not any("index check" in m for m in mod.messages)
    a, idx, b = _data()
    mod(a, idx, b)                                    # in range: same answers unchecked
    np.testing.assert_array_equal(b, a[idx])
    assert any("index check" in m for m in tepad.build(s, args).messages)
    assert not tepad.build(s, args, index_check=False).messages
    # the argument wins over the context
    with PassContext(config={"tepad.index_check": False}):
        assert tepad.build(s, args, index_check=True).messages


def test_bad_option_values_are_errors():
    s, args = _gather()
    with pytest.raises(TepadError, match="index_check"):
        tepad.build(s, args, index_check="yes")
    with pytest.raises(TepadError, match="tepad.index_check"):
        with PassContext(config={"tepad.index_check": 1}):
            tepad.build(s, args)


def test_kernels_without_data_dependent_indices_are_unchanged():
    """Affine accesses (proved in bounds by InferBound) get no check: the pass returns the
    function it was given, so the code is the same with and without index_check."""
    A = te.placeholder((64, 60), "float32", name="A")
    Bx = te.compute((64, 58), lambda y, x: A[y, x] + A[y, x + 1] + A[y, x + 2], name="Bx")
    By = te.compute((62, 58), lambda y, x: Bx[y, x] + Bx[y + 2, x], name="By")
    s = te.create_schedule(By.op)
    yo, yi = s[By].split(By.op.axis[0], factor=8)
    s[By].parallel(yo)
    s[By].vectorize(By.op.axis[1])
    s[Bx].compute_at(s[By], yo)
    on = lower_for_codegen(s, [A, By])
    off = lower_for_codegen(s, [A, By], opts=Options(index_check=False))
    assert on.script() == off.script() and not _asserts(on)
    assert instrument_index_checks(off) is off
    assert tepad.build(s, [A, By]).unoptimized_ll == \
        tepad.build(s, [A, By], index_check=False).unoptimized_ll


def test_guarded_gather_checks_only_the_taken_branch():
    """``if_then_else(I[i] < n, A[I[i]], 0)``: an index the guard rejects is never read."""
    A = te.placeholder((10,), "float32", name="A")
    I = te.placeholder((6,), "int32", name="I")
    B = te.compute((6,), lambda i: te.if_then_else(tir.all(I[i] >= 0, I[i] < 10), A[I[i]],
                                                   tir.const(-1.0, "float32")), name="B")
    mod = tepad.build(te.create_schedule(B.op), [A, I, B])
    a = np.arange(10, dtype="float32")
    idx = np.array([0, 9, 10, -3, 10 ** 6, 4], "int32")
    b = np.zeros(6, "float32")
    mod(a, idx, b)
    np.testing.assert_array_equal(b, [0, 9, -1, -1, -1, 4])


def test_gpu_emulated_gather_is_checked(monkeypatch):
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    s, args = _gather(m=64)
    B = args[-1]
    bx, tx = s[B].split(B.op.axis[0], factor=32)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    mod = tepad.build(s, args, target="cuda")
    a, idx, b = _data()
    mod(a, idx, b)
    np.testing.assert_array_equal(b, a[idx])
    idx[40] = 1000
    with pytest.raises(TepadError, match=r"load of tensor A at index I\[.*\] = 1000, outside "
                                         r"the valid range \[0, 100\)"):
        mod(a, idx, b)


def test_cuda_codegen_of_a_checked_gather_traps(tmp_path):
    """Real CUDA: the device code has the check (a trap: device code cannot return a
    status) and ptxas accepts it."""
    from tepad.backend.cuda import ptx_of
    from tepad.codegen.nvptx_target import ptxas_path
    s, args = _gather(m=64)
    B = args[-1]
    bx, tx = s[B].split(B.op.axis[0], factor=32)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    f = lower_for_codegen(s, args, opts=Options(target="cuda"))
    assert _asserts(f)
    ptx = ptx_of(f)
    assert "trap;" in ptx
    if ptxas_path() is not None:
        import subprocess
        path = tmp_path / "k.ptx"
        path.write_text(ptx)
        r = subprocess.run([ptxas_path(), "-arch=sm_90", str(path), "-o",
                            str(tmp_path / "k.cubin")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


_CRASH = """
import numpy as np, tepad
from tepad import te
A = te.placeholder((1000,), "float32", name="A")
I = te.placeholder((64,), "int32", name="I")
B = te.compute((64,), lambda i: A[I[i]], name="B")
s = te.create_schedule(B.op)
mod = tepad.build(s, [A, I, B])
idx = np.zeros(64, "int32"); idx[3] = 10 ** 8
try:
    mod(np.zeros(1000, "float32"), idx, np.zeros(64, "float32"))
except tepad.TepadError as e:
    print("raised:", e)
"""


def test_the_reported_gather_no_longer_kills_the_process():
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    r = subprocess.run([sys.executable, "-c", _CRASH], capture_output=True, text=True,
                       timeout=120, cwd=root)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert "raised: index check failed: load of tensor A at index I[i] = 100000000" in r.stdout


def test_vector_gather_has_one_check_reporting_the_first_bad_lane():
    A = te.placeholder((100,), "float32", name="A")
    I = te.placeholder((64,), "int32", name="I")
    B = te.compute((64,), lambda i: A[I[i]], name="B")
    s = te.create_schedule(B.op)
    _, xi = s[B].split(B.op.axis[0], factor=16)
    s[B].vectorize(xi)
    f = lower_for_codegen(s, [A, I, B])
    (check,) = _asserts(f)
    assert tir.dtype.lanes(check.condition.dtype) == 16      # all lanes in one condition
    mod = tepad.build(s, [A, I, B])
    a, idx, b = _data()
    idx[21], idx[22] = -7, 555                               # lanes 5 and 6 of one vector
    with pytest.raises(TepadError, match=r"at index I\[T.Ramp\(.*\)\] = -7, outside"):
        mod(a, idx, b)
    idx[21] = 3
    with pytest.raises(TepadError, match=r"= 555, outside"):
        mod(a, idx, b)


def test_gather_under_a_lane_mask_is_one_vector_check():
    """A gather in a lane-wise ``if_then_else`` arm: one check whose condition is a vector
    over the statement's own index and mask (no scalar copy per lane); a bad index in a lane
    the mask takes raises, one in a lane it leaves does not."""
    A = te.placeholder((100,), "float32", name="A")
    I = te.placeholder((64,), "int32", name="I")
    X = te.placeholder((64,), "float32", name="X")
    B = te.compute((64,), lambda i: te.if_then_else(X[i] > 0, A[I[i]],
                                                    tir.const(-1.0, "float32")), name="B")
    s = te.create_schedule(B.op)
    _, xi = s[B].split(B.op.axis[0], factor=16)
    s[B].vectorize(xi)
    f = lower_for_codegen(s, [A, I, X, B])
    (check,) = _asserts(f)
    assert tir.dtype.lanes(check.condition.dtype) == 16
    nodes = []
    tir.post_order_visit(check.condition, nodes.append)
    assert len(nodes) < 40        # per-lane copies of index and mask would be hundreds
    mod = tepad.build(s, [A, I, X, B])
    a, idx, b = _data()
    x = np.where(np.arange(64) % 3 == 0, -1.0, 1.0).astype("float32")
    mod(a, idx, x, b)
    np.testing.assert_array_equal(b, np.where(x > 0, a[idx], -1))
    idx[3] = 10 ** 6              # lane the mask leaves: never read, no error
    mod(a, idx, x, b)
    assert b[3] == -1
    idx[4] = -5                   # lane the mask takes
    with pytest.raises(TepadError, match=r"load of tensor A at index I\[.*\] = -5, outside"):
        mod(a, idx, x, b)
