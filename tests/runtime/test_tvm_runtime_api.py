"""TVM's runtime surface under ``import tepad as tvm``: devices, ``tvm.nd``, Module methods
(``mod[name]``, ``entry_name``, ``get_source``, ``time_evaluator``), ``tvm.error``,
``tvm.runtime.convert`` and ``Map``. The snippets are written as a TVM user writes them."""
import pickle

import numpy as np
import pytest

import tepad as tvm
from tepad import te, tir


def _add_module(n=16, name="myadd"):
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute(A.shape, lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    return tvm.build(s, [A, B, C], target="llvm", name=name)


def _sym_scale_module():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 3.0, name="B")
    return tvm.build(te.create_schedule(B.op), [A, B])


# ------------------------------------------------------------------------------ devices

# these tests run on machines with and without a GPU: what they expect of cuda(0) follows
# whether it is there, and "a CUDA device that does not exist" is one past the last (none
# under TEPAD_CUDA=emulate, where every cuda(i) exists)
_HAS_CUDA = tvm.cuda(0).exist
_ABSENT_CUDA = next((d for d in (tvm.cuda(0), tvm.cuda(64)) if not d.exist), None)

def test_devices_as_tvm():
    dev = tvm.cpu(0)
    assert repr(dev) == "cpu(0)" and str(tvm.cuda(1)) == "cuda(1)"
    assert (dev.device_type, dev.device_id) == (1, 0)
    assert dev.exist
    dev.sync()
    assert tvm.device("cpu", 0) == dev == tvm.device("llvm") == tvm.device("cpu:0")
    assert tvm.device("llvm -mcpu=native", 0) == dev and tvm.device(1, 0) == dev
    assert tvm.cpu() == tvm.cpu(0) and tvm.cpu(1) != dev
    assert len({tvm.cpu(0), tvm.device("cpu", 0), tvm.cuda(0)}) == 2
    assert tvm.cuda(0).device_type == 2
    assert tvm.cuda(0).exist == _HAS_CUDA       # True on a GPU machine (or the emulator)
    assert tvm.device("cuda", 0) == tvm.cuda(0) == tvm.gpu(0)
    assert pickle.loads(pickle.dumps(dev)) == dev
    assert tvm.nd.cpu(0) == dev and tvm.runtime.cpu(0) == dev


def test_unknown_device_is_refused():
    with pytest.raises(tvm.TepadError, match="unknown device 'tpu'"):
        tvm.device("tpu")
    if _ABSENT_CUDA is not None:
        with pytest.raises(tvm.TepadError, match="does not exist"):
            _ABSENT_CUDA.sync()


# ------------------------------------------------------------------------------ tvm.nd

def test_nd_array_round_trip():
    x = np.random.rand(3, 4).astype("float32")
    a = tvm.nd.array(x, tvm.cpu(0))
    assert isinstance(a, tvm.nd.NDArray)
    assert a.shape == (3, 4) and a.dtype == "float32" and a.device == tvm.cpu(0)
    np.testing.assert_array_equal(a.numpy(), x)
    np.testing.assert_array_equal(a.asnumpy(), x)
    x[0, 0] = 99                               # nd.array copied
    assert a.numpy()[0, 0] != 99
    y = a.numpy()
    y[:] = 0                                   # numpy() is a copy too
    assert a.numpy()[1, 1] != 0
    assert tvm.nd.array(x).device == tvm.cpu(0)
    assert tvm.nd.array([[1, 2], [3, 4]]).dtype == "int64"
    assert tvm.nd.array(np.zeros(3, "int8")).dtype == "int8"
    assert tvm.nd.array(np.array([True, False])).dtype == "bool"
    assert "shape=(3, 4), cpu(0)" in repr(a)
    # a non-contiguous view and a big-endian array become C-order, native-order copies
    v = tvm.nd.array(np.arange(12, dtype=">f4").reshape(3, 4)[:, ::2])
    assert v.numpy().dtype == np.dtype("float32") and v.numpy().flags.c_contiguous
    np.testing.assert_array_equal(v.numpy(), np.arange(12).reshape(3, 4)[:, ::2])


def test_nd_empty_copyfrom_copyto():
    b = tvm.nd.empty((2, 3), "int32", tvm.cpu(0))
    assert b.shape == (2, 3) and b.dtype == "int32"
    assert tvm.nd.empty(5).shape == (5,) and tvm.nd.empty(5).dtype == "float32"
    src = np.arange(6, dtype="int32").reshape(2, 3)
    assert b.copyfrom(src) is b
    np.testing.assert_array_equal(b.numpy(), src)
    b.copyfrom(src.astype("float64") * 2)     # converted to the NDArray's dtype, as TVM
    np.testing.assert_array_equal(b.numpy(), src * 2)
    c = tvm.nd.empty((2, 3), "int32")
    c.copyfrom(b)
    np.testing.assert_array_equal(c.numpy(), src * 2)
    d = tvm.nd.empty((2, 3), "int32")
    assert b.copyto(d) is d
    np.testing.assert_array_equal(d.numpy(), src * 2)
    e = b.copyto(tvm.cpu(0))
    assert isinstance(e, tvm.nd.NDArray) and e is not b
    np.testing.assert_array_equal(e.numpy(), src * 2)
    e[:] = np.ones((2, 3), "int32")
    np.testing.assert_array_equal(e.numpy(), 1)
    np.testing.assert_array_equal(np.asarray(e), 1)


def test_nd_mistakes_are_tepad_errors():
    with pytest.raises(tvm.TepadError, match=r"shape \(3,\) does not match .* \(2, 3\)"):
        tvm.nd.empty((2, 3)).copyfrom(np.zeros(3))
    if _ABSENT_CUDA is not None:
        with pytest.raises(tvm.TepadError, match="does not exist"):
            tvm.nd.array(np.zeros(3), _ABSENT_CUDA)
        with pytest.raises(tvm.TepadError, match="does not exist"):
            tvm.nd.empty((3,), "float32", _ABSENT_CUDA)
    with pytest.raises(TypeError):
        tvm.nd.empty((3,), "no_such_dtype")
    with pytest.raises(TypeError):
        tvm.nd.array(np.array(["a", "b"]))
    with pytest.raises(TypeError):
        tvm.nd.empty((2,)).copyto("cpu")
    with pytest.raises(TypeError, match=r"a\[:\] = value"):
        tvm.nd.empty((2,))[0] = 1.0


def test_tvm_style_call_with_nd_arrays():
    f = _add_module()
    dev = tvm.cpu(0)
    a_np = np.random.uniform(size=16).astype("float32")
    b_np = np.random.uniform(size=16).astype("float32")
    a = tvm.nd.array(a_np, dev)
    b = tvm.nd.array(b_np, dev)
    c = tvm.nd.array(np.zeros(16, dtype="float32"), dev)
    f(a, b, c)
    np.testing.assert_allclose(c.numpy(), a_np + b_np, rtol=1e-6)
    # mixed NDArray / numpy arguments; the output NDArray is written in place (no copy)
    c2 = tvm.nd.empty((16,), "float32", dev)
    f(a_np, b, c2)
    np.testing.assert_allclose(c2.numpy(), a_np + b_np, rtol=1e-6)
    out = np.zeros(16, "float32")
    f(a, b_np, out)
    np.testing.assert_allclose(out, a_np + b_np, rtol=1e-6)


def test_nd_arrays_take_the_fast_path_without_copies():
    f = _add_module()
    a, b, c = (tvm.nd.array(np.ones(16, "float32")) for _ in range(3))
    ptrs = f._checker.pointers((a, b, c))
    assert ptrs == [x._arr.ctypes.data for x in (a, b, c)]


def test_nd_host_memory_is_aligned_as_tvm_allocates_it():
    # numpy's large arrays start 16 bytes past a page (malloc's header): NDArrays start on a
    # 64-byte boundary (TVM's kAllocAlignment), whatever the source's alignment
    base = np.zeros(1024 * 1024 + 5, "float32")
    for src in (base[1:1 + 1024 * 1024].reshape(1024, 1024), np.arange(7, dtype=">i4"),
                [[1.5, 2.5]], np.array(True), np.zeros((3, 5), "float16")):
        a = tvm.nd.array(src)
        assert a._arr.ctypes.data % 64 == 0
        np.testing.assert_array_equal(a.numpy(), np.asarray(src))
        assert a.numpy().dtype.isnative and a._arr.flags.c_contiguous
        assert a.copyto(tvm.cpu(0))._arr.ctypes.data % 64 == 0
    for shape, dtype in (((1000, 3), "float32"), ((17,), "int8"), ((3,), "float32x4")):
        e = tvm.nd.empty(shape, dtype)
        assert e._arr.ctypes.data % 64 == 0 and e._arr.flags.writeable
    # a kernel reads and writes the aligned views in place
    f = _add_module()
    a, b = tvm.nd.array(np.arange(16, dtype="float32")), tvm.nd.array(np.ones(16, "float32"))
    c = tvm.nd.empty((16,), "float32")
    f(a, b, c)
    np.testing.assert_array_equal(c.numpy(), np.arange(16) + 1.0)


def test_nd_arrays_with_symbolic_shapes():
    f = _sym_scale_module()
    for n in (1, 7, 33):
        x = np.random.rand(n).astype("float32")
        a, b = tvm.nd.array(x), tvm.nd.empty((n,), "float32")
        f(a, b)
        np.testing.assert_allclose(b.numpy(), x * 3, rtol=1e-6)
    with pytest.raises(tvm.TepadError, match="argument 1 'B': expected shape"):
        f(tvm.nd.array(np.zeros(3, "float32")), tvm.nd.empty((4,), "float32"))
    with pytest.raises(TypeError, match="expected dtype float32, got float64"):
        f(tvm.nd.array(np.zeros(3)), tvm.nd.empty((3,), "float32"))


# ------------------------------------------------------------------------------ Module methods

def test_module_entry_get_function_and_source():
    f = _add_module(name="myadd")
    assert f.entry_name == "myadd"
    assert callable(f["myadd"]) and f.get_function("myadd") is f["myadd"]
    fadd = f[f.entry_name]
    a, b = np.ones(16, "float32"), np.full(16, 2, "float32")
    c = np.zeros(16, "float32")
    fadd(a, b, c)
    assert (c == 3).all()
    assert f["__tvm_main__"] is fadd
    with pytest.raises(AttributeError, match="Module has no function 'nope'"):
        f.get_function("nope")
    with pytest.raises(tvm.TepadError):
        f["nope"]
    src = f.get_source()
    assert "define" in src and "myadd" in src and src == f.get_source("ll")
    with pytest.raises(tvm.TepadError, match="unknown source format"):
        f.get_source("ptx")


def test_time_evaluator_as_tvm():
    f = _add_module()
    dev = tvm.cpu(0)
    a = tvm.nd.array(np.random.rand(16).astype("float32"), dev)
    b = tvm.nd.array(np.random.rand(16).astype("float32"), dev)
    c = tvm.nd.empty((16,), "float32", dev)
    evaluator = f.time_evaluator(f.entry_name, dev, number=20, repeat=3)
    r = evaluator(a, b, c)
    assert len(r.results) == 3 and all(t > 0 for t in r.results)
    assert r.min <= r.median <= r.max and r.min <= r.mean <= r.max
    assert r.std >= 0 and r.mean == pytest.approx(sum(r.results) / 3)
    assert repr(r).startswith("BenchmarkResult(min=") and "results=(" in repr(r)
    assert "mean (ms)" in str(r) and "median (ms)" in str(r)
    np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy(), rtol=1e-6)
    # numpy arguments, default name and device; min_repeat_ms grows the number of calls
    an, bn, cn = (np.ones(16, "float32") for _ in range(3))
    r2 = f.time_evaluator(number=1, repeat=2, min_repeat_ms=5)(an, bn, cn)
    assert len(r2.results) == 2 and r2.mean < 5e-3
    if _ABSENT_CUDA is not None:
        with pytest.raises(tvm.TepadError, match="does not exist"):
            f.time_evaluator(f.entry_name, _ABSENT_CUDA)
    with pytest.raises(tvm.TepadError, match="number must be a positive int"):
        f.time_evaluator(f.entry_name, dev, number=0)
    with pytest.raises(TypeError, match="expected 3 arguments"):
        f.time_evaluator(f.entry_name, dev)(an, bn)


def test_time_repeats_min_repeat_ms():
    from tepad.runtime.timing import time_repeats
    calls = []
    res = time_repeats(lambda: calls.append(1), number=1, repeat=2, min_repeat_ms=2.0)
    assert len(res) == 2 and len(calls) > 3     # grew past one call per block


# ------------------------------------------------------------------------------ errors

def test_error_hierarchy():
    assert issubclass(tvm.error.TVMError, RuntimeError)
    assert issubclass(tvm.TepadError, tvm.error.TVMError)
    assert issubclass(tvm.TepadError, ValueError)
    assert tvm.TVMError is tvm.error.TVMError and tvm.error.TepadError is tvm.TepadError
    assert issubclass(tvm.error.TepadTypeError, TypeError)
    assert issubclass(tvm.error.InternalError, tvm.error.TVMError)
    A = te.placeholder((4,), name="A")
    s = te.create_schedule(te.compute((4,), lambda i: A[i], name="B").op)
    for exc in (tvm.error.TVMError, ValueError, RuntimeError, tvm.TepadError):
        with pytest.raises(exc):
            s[A].split(A.op.output(0).shape[0], factor=2)


def test_module_argument_errors_are_tepad_errors():
    f = _add_module()
    a = np.ones(16, "float32")
    bad = [
        ((a, a), TypeError),                                 # count
        ((a, a, [0.0] * 16), TypeError),                     # type
        ((a, a, np.zeros(16, "float64")), TypeError),        # dtype
        ((a, a, np.zeros(15, "float32")), ValueError),       # shape
        ((a, a, np.zeros(32, "float32")[::2]), ValueError),  # contiguity
    ]
    for args, kind in bad:
        for exc in (tvm.TepadError, tvm.error.TVMError, kind):
            with pytest.raises(exc):
                f(*args)


# ------------------------------------------------------------------------------ convert, Map

def test_convert_as_tvm():
    x = tvm.runtime.convert(1)
    assert isinstance(x, tir.IntImm) and x.dtype == "int32" and x.value == 1
    assert tvm.runtime.convert(1 << 40).dtype == "int64"
    y = tvm.runtime.convert(1.5)
    assert isinstance(y, tir.FloatImm) and y.dtype == "float32" and y.value == 1.5
    assert tvm.runtime.convert(True).dtype == "bool"
    arr = tvm.runtime.convert([1, 2, 3])
    assert isinstance(arr, tvm.ir.container.Array) and isinstance(arr, list)
    assert [int(v) for v in arr] == [1, 2, 3] and all(isinstance(v, tir.IntImm) for v in arr)
    nested = tvm.runtime.convert((1, [2.0, 3]))
    assert isinstance(nested[1], tvm.ir.container.Array) and nested[1][0].dtype == "float32"
    m = tvm.runtime.convert({"a": 1, "b": [2]})
    assert isinstance(m, tvm.container.Map) and int(m["a"]) == 1 and int(m["b"][0]) == 2
    n = te.var("n")
    assert tvm.runtime.convert(n) is n and tvm.runtime.convert(None) is None
    assert tvm.runtime.convert("s") == "s"
    assert tvm.runtime.convert(np.int64(3)).dtype == "int64"
    assert tvm.runtime.convert(np.float64(3)).dtype == "float64"
    A = te.placeholder((4,), name="A")
    assert tvm.runtime.convert(A) is A
    assert tvm.runtime.convert([A])[0] is A
    with pytest.raises(TypeError, match="cannot convert"):
        tvm.runtime.convert(object())
    # converted shapes build kernels
    B = te.compute(tvm.runtime.convert([4]), lambda i: A[i] + 1.0, name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B])
    b = np.zeros(4, "float32")
    f(np.arange(4, dtype="float32"), b)
    np.testing.assert_array_equal(b, np.arange(4) + 1)


def test_infer_bound_returns_a_map():
    A = te.placeholder((32,), name="A")
    B = te.compute((32,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=8)
    bounds = te.schedule.InferBound(s.normalize())
    assert isinstance(bounds, tvm.ir.container.Map) and isinstance(bounds, tvm.container.Map)
    assert tvm.container.Map is tvm.ir.container.Map is tvm.runtime.Map
    assert int(bounds[xi].extent) == 8 and int(bounds[xo].extent) == 4
    assert xi in bounds and len(bounds) >= 3
    assert {iv.name for iv in bounds.keys()} >= {"i", "i.outer", "i.inner"}
    stmt = te.schedule.ScheduleOps(s, bounds)
    assert "i.inner" in str(stmt) or "i_inner" in str(stmt)
