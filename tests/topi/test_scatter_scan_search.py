"""topi.scatter_elements / scatter_add (every reduction, negative and duplicate indices),
topi.scanop with user binops and topi.binary_search inside an extern kernel, against numpy
loops, on the CPU and through the CUDA emulator."""
import numpy as np
import pytest

import tepad
from tepad import te, tir, topi
from tepad.errors import TepadError

from topi_helpers import placeholder, run

RNG = np.random.default_rng(41)
NP_COMBINE = {"update": lambda o, u: u, "add": lambda o, u: o + u, "mul": lambda o, u: o * u,
              "mean": lambda o, u: (o + u) / 2, "min": min, "max": max}


def _reference(data, indices, updates, axis, reduction):
    """Apply the updates one after another: positions off the axis in row-major order,
    then along the axis."""
    out = data.copy()
    moved = np.moveaxis(indices, axis, -1)
    upd = np.moveaxis(updates, axis, -1)
    for pos in np.ndindex(moved.shape[:-1]):
        for k in range(moved.shape[-1]):
            idx = int(moved[pos + (k,)]) % data.shape[axis]
            dst = pos[:axis] + (idx,) + pos[axis:]
            out[dst] = NP_COMBINE[reduction](out[dst], upd[pos + (k,)])
    return out


@pytest.mark.parametrize("reduction", ["update", "add", "mul", "mean", "min", "max"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_scatter_elements_cpu(reduction, axis):
    data = RNG.random((4, 5, 3)).astype("float32")
    ishape = list(data.shape)
    ishape[axis] = 6                                   # more updates than slots: duplicates
    ishape[(axis + 1) % 3] -= 1                        # indices smaller than data off the axis
    extent = data.shape[axis]
    indices = RNG.integers(-extent, extent, ishape).astype("int64")
    updates = RNG.random(ishape).astype("float32") + 0.5
    D, I, U = placeholder(data, "D"), placeholder(indices, "I"), placeholder(updates, "U")
    out = topi.scatter_elements(D, I, U, axis, reduction)
    got = run(out, [D, I, U], [data, indices, updates], topi.generic.schedule_extern)
    np.testing.assert_allclose(got, _reference(data, indices, updates, axis % 3, reduction),
                               rtol=1e-6)


@pytest.mark.parametrize("target", ["llvm", "cuda"])
def test_scatter_add_matches_np_add_at(target):
    data = RNG.random((6, 4)).astype("float32")
    indices = RNG.integers(0, 6, (9, 4)).astype("int32")
    updates = RNG.random((9, 4)).astype("float32")
    D, I, U = placeholder(data, "D"), placeholder(indices, "I"), placeholder(updates, "U")
    with tepad.target.Target(target):                 # the op reads the target it is built for
        out = topi.scatter_add(D, I, U, 0)
    assert out.op.tag == "scatter_add"
    sched = topi.cuda.schedule_extern if target == "cuda" else topi.generic.schedule_extern
    got = run(out, [D, I, U], [data, indices, updates], sched, target)
    want = data.copy()
    np.add.at(want, (indices, np.arange(4)[None, :].repeat(9, 0)), updates)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_scatter_add_module_path():
    """TVM's ``topi/scatter_add.py``: ``from tvm.topi.scatter_add import scatter_add``."""
    from tepad.topi.scatter_add import scatter_add
    D = te.placeholder((3, 4), name="D")
    I = te.placeholder((2, 4), "int32", name="I")
    assert scatter_add(D, I, te.placeholder((2, 4), name="U"), 0).op.tag == "scatter_add"


def test_scatter_errors():
    D = te.placeholder((3, 4), name="D")
    I = te.placeholder((2, 4), "int32", name="I")
    U = te.placeholder((2, 4), name="U")
    with pytest.raises(TepadError, match="reduction must be one of"):
        topi.scatter_elements(D, I, U, 0, "sum")
    with pytest.raises(TepadError, match="axis 2 is out of range"):
        topi.scatter_add(D, I, U, 2)
    with pytest.raises(TepadError, match="one shape"):
        topi.scatter_add(D, I, te.placeholder((2, 3), name="U2"), 0)
    with pytest.raises(TepadError, match="must be integers"):
        topi.scatter_add(D, te.placeholder((2, 4), name="F"), U, 0)


@pytest.mark.parametrize("target", ["llvm", "cuda"])
def test_scanop(target):
    a = RNG.integers(-9, 9, (3, 7)).astype("int32")
    A = placeholder(a, "A")
    run_max = topi.scanop(A, tir.max, -(1 << 30), "cummax", axis=1)
    sub = topi.scanop(A, lambda x, y: x - y, 0, "cumsub", axis=0, exclusive=True)
    add64 = topi.scanop(A, tir.generic.add, 0, "cumadd", dtype="int64")
    assert run_max.op.name == "T_cummax" and add64.dtype == "int64"
    sched = topi.cuda.schedule_injective if target == "cuda" else None
    got = run([run_max, sub, add64], [A], [a], sched, target)
    np.testing.assert_array_equal(got[0], np.maximum.accumulate(a, axis=1))
    excl = np.zeros_like(a)
    for r in range(1, 3):
        excl[r] = excl[r - 1] - a[r - 1]
    np.testing.assert_array_equal(got[1], excl)
    np.testing.assert_array_equal(got[2], np.cumsum(a.ravel()).astype("int64"))
    with pytest.raises(TepadError, match="binop"):
        topi.scanop(A, "add", 0, "x")


@pytest.mark.parametrize("right", [False, True])
def test_binary_search_in_an_extern_kernel(right):
    seq = np.sort(RNG.integers(0, 20, (3, 11)), axis=1).astype("float32")
    vals = RNG.integers(-1, 22, (3, 5)).astype("float32")
    vals[0, :2] = seq[0, 3], seq[0, 10]                 # exact hits
    S, V = placeholder(seq, "S"), placeholder(vals, "V")

    def kernel(ins, outs):
        ib = tir.ir_builder.create()
        s, v, o = (ib.buffer_ptr(b) for b in (*ins, outs[0]))
        with ib.for_range(0, 3, name="r") as r:
            with ib.for_range(0, 5, name="c") as c:
                o[r * 5 + c] = topi.binary_search(ib, r * 11, 11, s, v[r * 5 + c], right,
                                                  "int32")
        return ib.get()
    out = te.extern((3, 5), [S, V], kernel, dtype="int32", name="search")
    got = run(out, [S, V], [seq, vals])
    side = "right" if right else "left"
    want = np.stack([np.searchsorted(seq[r], vals[r], side=side) for r in range(3)])
    np.testing.assert_array_equal(got, want)
    with pytest.raises(TepadError, match="IRBuilder"):
        topi.binary_search(None, 0, 11, None, 0.0, False, "int32")
