"""Serial loops past ``OUTLINE_DEPTH`` become functions of their own (``codegen.outline``)."""
import os
import sys

import numpy as np
import pytest

import tepad
from tepad import tir
from tepad.codegen import compile_kernel, outline
from tepad.errors import TepadError
from tepad.runtime import Module
from tepad.testing import reference
from codegen_helpers import make_func

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
from bench_compile import chain  # noqa: E402


def _nest(depth, body):
    """``depth`` serial loops of extent 2 around ``body(vars)``, and their vars."""
    vs = [tir.Var(f"i{k}") for k in range(depth)]
    s = body(vs)
    for v in reversed(vs):
        s = tir.For(v, 0, 2, tir.ForKind.SERIAL, s)
    return s


def _counter_kernel(depth, limit=None):
    """``C[0] += 1`` at every point of a ``depth``-deep nest (``2**depth`` in all); with
    ``limit``, an assert that ``C[0] < limit`` before each increment."""
    C = tir.Buffer((1,), "int32", "C")

    def body(c):
        def inner(vs):
            store = tir.BufferStore(c, c[0] + 1, [0])
            if limit is None:
                return store
            return tir.AssertStmt(c[0] < limit, tir.StringImm("count reached the limit"), store)
        return _nest(depth, inner)

    return make_func([C], body)


def test_a_deep_nest_is_split_into_functions_and_still_counts_every_point():
    depth = 2 * outline.OUTLINE_DEPTH + 3
    k = compile_kernel(_counter_kernel(depth))
    # one function per OUTLINE_DEPTH levels, each called from the one outside it
    assert k.source_ll.count("define internal i32 @\"main_nest") == 2
    assert "noinline" in k.source_ll
    c = np.zeros(1, "int32")
    Module(k)(c)
    assert c[0] == 2 ** depth


def test_a_shallow_nest_stays_in_one_function():
    k = compile_kernel(_counter_kernel(outline.OUTLINE_DEPTH))
    assert "main_nest" not in k.source_ll


def test_a_failed_assert_inside_an_outlined_nest_reaches_the_caller():
    depth = outline.OUTLINE_DEPTH + 4
    k = compile_kernel(_counter_kernel(depth, limit=100))
    assert "main_nest" in k.source_ll
    c = np.zeros(1, "int32")
    with pytest.raises(TepadError, match="count reached the limit"):
        Module(k)(c)
    assert c[0] == 100


def test_outlining_can_be_switched_off(monkeypatch):
    monkeypatch.setattr(outline, "OUTLINE_DEPTH", None)
    k = compile_kernel(_counter_kernel(outline.__dict__.get("OUTLINE_DEPTH") or 20))
    assert "main_nest" not in k.source_ll


@pytest.mark.parametrize("exact", [False, True], ids=["interval", "exact"])
def test_a_deep_chain_builds_outlined_and_computes_the_right_values(exact):
    n, size, tile = 16, 24, 4
    s, (A, out) = chain(n, "clamped", "tiled", size=size, tile=tile)
    mod = tepad.build(tepad.lower(s, [A, out], exact_bounds=exact), bounds_check=True)
    assert "main_nest" in mod.get_source()
    a = np.random.default_rng(3).standard_normal((size, size)).astype("float32")
    res = np.zeros((size, size), "float32")
    mod(a, res)
    np.testing.assert_allclose(res, reference(out, {A: a}), rtol=1e-4, atol=1e-4)
