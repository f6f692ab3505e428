"""Small builders shared by the one-pass-per-file tests in tests/lower."""
import numpy as np

import tepad
from tepad import tir
from tepad.tir import stmt as S
from tepad.tir import expr as E

RNG = np.random.default_rng(0)


def func(params, body, **attrs):
    """A PrimFunc over argument buffers ``params`` (in order)."""
    a = {"global_symbol": "main"}
    a.update(attrs)
    return tir.PrimFunc([b.data for b in params], body, {b.data: b for b in params}, a)


def loops(vars_extents, body, kind="serial"):
    """``for v0 in range(e0): for v1 ...: body`` (outermost first)."""
    for v, e in reversed(vars_extents):
        body = tir.For(v, 0, e, kind, body)
    return body


def nodes(node, cls):
    """Every node of type ``cls`` under ``node`` (a PrimFunc's body is searched)."""
    if isinstance(node, tir.PrimFunc):
        node = node.body
    out = []
    tir.post_order_visit(node, lambda n: out.append(n) if isinstance(n, cls) else None)
    return out


def calls(node, op):
    return [c for c in nodes(node, E.Call) if c.op == op]


def accesses(node):
    """Every BufferLoad and BufferStore under ``node``."""
    return nodes(node, E.BufferLoad) + nodes(node, S.BufferStore)


def fors(node, kind=None):
    return [f for f in nodes(node, S.For) if kind is None or f.kind == S.ForKind(kind)]


def ints(exprs):
    return [int(e) for e in exprs]


def run(f, *arrays, **build_kw):
    """Build a PrimFunc and call it on ``arrays`` (modified in place); returns them."""
    tepad.build(f, **build_kw)(*arrays)
    return arrays


def rand(shape, dtype="float32"):
    if dtype.startswith("int"):
        return RNG.integers(-50, 50, size=shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)
