"""float16 on a CPU without F16C: LLVM turns the conversions into calls to libgcc's
``__extendhfsf2`` / ``__truncsfhf2`` / ``__truncdfhf2``, which tepad loads; where they are missing
the build is refused with a TepadError instead of a kernel that jumps to a null address."""
import numpy as np
import pytest

import tepad
from tepad import te
from tepad.codegen import jit


@pytest.mark.parametrize("src,dst", [("float16", "float32"), ("float32", "float16"),
                                     ("float64", "float16"), ("float16", "float64")])
def test_float16_conversions_on_a_generic_x86_64(src, dst):
    X = te.placeholder((37,), src, name="X")
    Y = te.compute(X.shape, lambda i: (X[i] * 3).astype(dst), name="Y")
    f = tepad.build(te.create_schedule(Y.op), [X, Y], target="llvm -mcpu=x86-64")
    x = (np.random.default_rng(5).standard_normal(37) * 10).astype(src)
    y = np.zeros(37, dst)
    f(x, y)
    want = (x * np.asarray(3, src)).astype(dst)
    np.testing.assert_allclose(y.astype("float64"), want.astype("float64"), rtol=2e-3)


def test_missing_half_conversions_are_a_tepad_error(monkeypatch):
    monkeypatch.setattr(jit.llvm, "address_of_symbol", lambda name: 0)
    with pytest.raises(tepad.TepadError, match="float16 on a CPU without F16C"):
        jit.check_half_libcalls("  %1 = fpext half %0 to float", "+sse2,-f16c", "k")
    jit.check_half_libcalls("  %1 = fpext half %0 to float", "+sse2,+f16c", "k")
    jit.check_half_libcalls("  %1 = fadd float %0, %0", "+sse2", "k")
