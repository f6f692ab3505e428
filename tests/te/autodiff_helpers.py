"""Finite-difference checks of te.gradient (float64 so central differences are accurate)."""
import numpy as np

import tepad
from tepad import te, tir
from tepad.arith import Analyzer


def shape_of(t, sizes=None):
    out = []
    for d in t.shape:
        vmap = {v: tir.const(sizes[v.name]) for v in tir.collect_vars(d)} if sizes else {}
        out.append(int(Analyzer().simplify(tir.substitute(d, vmap))))
    return out


def numeric_grads(forward, arrays, eps=1e-6):
    """Central differences of ``forward(*arrays)`` (a number) wrt every array."""
    grads = []
    for a in arrays:
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            old = a[idx]
            a[idx] = old + eps
            hi = forward(*arrays)
            a[idx] = old - eps
            lo = forward(*arrays)
            a[idx] = old
            g[idx] = (hi - lo) / (2 * eps)
        grads.append(g)
    return grads


def check_grad(out, inputs, args=(), data_range=(-10, 10), desired=None, seed=0,
               rtol=1e-4, atol=1e-4):
    """``te.gradient(out, inputs, head=ones)`` built and compared with finite differences of
    ``out.sum()`` (or with ``desired``). Returns the gradients computed."""
    inputs = inputs if isinstance(inputs, list) else [inputs]
    rng = np.random.RandomState(seed)
    lo, hi = data_range
    arrays = [rng.uniform(lo, hi, size=shape_of(x)).astype(x.dtype) for x in inputs]
    arg_arrays = [rng.uniform(lo, hi, size=shape_of(x)).astype(x.dtype) for x in args]
    fwd = tepad.build(te.create_schedule(out.op), [out] + inputs + list(args))
    ones = te.compute(out.shape, lambda *i: tir.const(1.0, out.dtype), name="ones")
    grads = te.gradient(out, inputs, head=ones)
    assert [shape_of(g) for g in grads] == [shape_of(x) for x in inputs]
    gmod = tepad.build(te.create_schedule([g.op for g in grads]), grads + inputs + list(args))
    got = [np.zeros(shape_of(g), g.dtype) for g in grads]
    gmod(*got, *arrays, *arg_arrays)
    if desired is None:
        def forward(*ins):
            res = np.zeros(shape_of(out), out.dtype)
            fwd(res, *ins[:len(inputs)], *arg_arrays)
            return res.sum()
        desired = numeric_grads(forward, arrays)
    for g, w in zip(got, desired):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    return got
