"""TVM 0.7-era calls in tutorials: ``tvm.tir.For`` built with 0.7's argument order and
integer loop kinds (the low-level custom pass), and a host module loaded from a shared
library importing its device code from ``.ptx`` (the get-started tutorial), here through the
GPU emulator."""
import numpy as np
import pytest

import tepad as tvm
from tepad import TepadError, te, tir
from tepad.contrib import cc, utils
from tepad.tir.stmt_functor import post_order_visit, substitute


def _add_one():
    n = 64
    a = te.placeholder((n,), name="a")
    b = te.compute((n,), lambda i: a[i] + 1.0, name="b")
    return te.create_schedule(b.op), a, b


def test_for_takes_tvm_07_argument_order_and_int_kinds():
    i, body = te.var("i"), tir.Evaluate(0)
    loop = tir.For(i, 0, 8, tir.For.Vectorized, 0, body)       # 0.7: ..., for_type, device_api, body
    assert loop.kind == tir.ForKind.VECTORIZED and loop.body is body
    assert [tir.For(i, 0, 8, k, body).kind for k in range(4)] == [
        tir.ForKind.SERIAL, tir.ForKind.PARALLEL, tir.ForKind.VECTORIZED, tir.ForKind.UNROLLED]
    with pytest.raises(TepadError, match="kind code 9"):
        tir.For(i, 0, 8, 9, body)


def test_a_07_style_lower_pass_splits_and_vectorizes_by_8():
    """The custom pass of TVM 0.7's tutorial: every serial loop of extent divisible by 8
    becomes an outer serial loop over a vectorized inner loop of 8."""
    s, a, b = _add_one()

    def vectorize8(op):
        if isinstance(op, tir.For) and op.extent.value % 8 == 0:
            lo, li = te.var(op.loop_var.name + ".outer"), te.var(op.loop_var.name + ".inner")
            body = substitute(op.body, {op.loop_var: lo * 8 + li})
            body = tir.For(li, 0, 8, tir.For.Vectorized, 0, body)
            return tir.For(lo, 0, op.extent // 8, tir.For.Serial, 0, body)
        return None

    @tvm.tir.transform.prim_func_pass(opt_level=0)
    def vectorize(f, mod, ctx):
        return f.with_body(tvm.tir.stmt_functor.ir_transform(f.body, None, vectorize8,
                                                             ["tir.For"]))

    with tvm.transform.PassContext(config={"tir.add_lower_pass": [(1, vectorize)]}):
        mod = tvm.lower(s, [a, b])
        f = tvm.build(s, [a, b])
    kinds = []
    post_order_visit(mod["main"].body, lambda n: kinds.append((n.kind, n.extent.value))
                     if isinstance(n, tir.For) else None)
    assert sorted(kinds, key=str) == sorted([(tir.ForKind.VECTORIZED, 8),
                                             (tir.ForKind.SERIAL, 8)], key=str)
    x = np.arange(64, dtype="float32")
    y = tvm.nd.empty((64,), "float32")
    f(tvm.nd.array(x), y)
    np.testing.assert_allclose(y.numpy(), x + 1.0)


def test_emulated_host_library_imports_its_ptx(monkeypatch):
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    s, a, b = _add_one()
    bx, tx = s[b].split(b.op.axis[0], factor=16)
    s[b].bind(bx, te.thread_axis("blockIdx.x"))
    s[b].bind(tx, te.thread_axis("threadIdx.x"))
    fadd = tvm.build(s, [a, b], "cuda", target_host="llvm", name="addone")
    temp = utils.tempdir()
    fadd.save(temp.relpath("addone.o"))
    fadd.imported_modules[0].save(temp.relpath("addone.ptx"))
    cc.create_shared(temp.relpath("addone.so"), [temp.relpath("addone.o")])
    host = tvm.runtime.load_module(temp.relpath("addone.so"))
    dev = tvm.runtime.load_module(temp.relpath("addone.ptx"))
    host.import_module(dev)
    assert host.imported_modules == [dev]
    x = np.random.default_rng(1).uniform(size=64).astype("float32")
    y = tvm.nd.empty((64,), "float32")
    host(tvm.nd.array(x), y)
    np.testing.assert_allclose(y.numpy(), x + 1.0, rtol=1e-6)
    with pytest.raises(TepadError, match="itself"):
        host.import_module(host)


def test_runtime_ffi_get_device_attr(monkeypatch):
    """TVM 0.7's tensor-core tutorial reads the compute capability through
    ``tvm.runtime._ffi_api.GetDeviceAttr(2, 0, 4)``: the emulated cuda device answers."""
    from tepad.contrib import nvcc
    monkeypatch.setenv("TEPAD_CUDA", "emulate")
    get = tvm.runtime._ffi_api.GetDeviceAttr
    version = get(2, 0, 4)
    assert version == tvm.cuda(0).compute_version
    major, minor = nvcc.parse_compute_version(version)
    assert major >= 7
    assert (get(2, 0, 0), get(1, 0, 0), get(2, 0, 2), get(2, 0, 1)) == (1, 1, 32, 1024)
    assert get(1, 0, 4) is None
    with pytest.raises(TepadError, match="attribute kind 42"):
        get(2, 0, 42)
