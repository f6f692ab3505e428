"""A reduce axis bound to blockIdx: lowered as TVM lowers it (one allreduce over the block
and thread indices, shown by lower), refused when built; bound to threadIdx it builds."""
import numpy as np
import pytest

import tepad
from tepad import te
from tepad.errors import TepadError


def _total(n=256, factor=32):
    a = te.placeholder((n,), name="a")
    k = te.reduce_axis((0, n), name="k")
    t = te.compute((1,), lambda i: te.sum(a[k], axis=k), name="t")
    s = te.create_schedule(t.op)
    ko, ki = s[t].split(k, factor=factor)
    return a, t, s, ko, ki


def test_reduce_axis_on_blocks_lowers_and_is_refused_when_built():
    a, t, s, ko, ki = _total()
    s[t].bind(ko, te.thread_axis("blockIdx.x"))
    s[t].bind(ki, te.thread_axis("threadIdx.x"))
    text = str(tepad.lower(s, [a, t], simple_mode=True))
    assert "tvm_thread_allreduce" in text and "blockIdx" in text
    with pytest.raises(TepadError, match="reduction across blockIdx.x"):
        tepad.build(s, [a, t], "cuda", emulate=True)


def test_reduce_axis_on_threads_builds_and_sums():
    a, t, s, ko, ki = _total()
    s[t].bind(ki, te.thread_axis("threadIdx.x"))
    f = tepad.build(s, [a, t], "cuda", emulate=True)
    x = np.random.default_rng(5).random(256).astype("float32")
    out = np.zeros(1, "float32")
    f(x, out)
    np.testing.assert_allclose(out[0], x.sum(), rtol=1e-5)
