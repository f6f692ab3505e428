"""Build-and-run helpers for the topi tests."""
import os

import numpy as np

import tepad
from tepad import te
from tepad.target import Target

RNG = np.random.default_rng(11)


def run(outs, inputs, arrays, schedule=None, target="llvm", out_shapes=None):
    """Build ``outs`` with ``schedule(outs)`` (the plain schedule when None) for ``target``
    (``with Target(target)`` around the schedule call) and return the outputs as arrays
    (of ``out_shapes`` where the shapes are symbolic)."""
    single = not isinstance(outs, list)
    outs = [outs] if single else outs
    with Target(target):
        s = schedule(outs) if schedule else te.create_schedule([o.op for o in outs])
    if target == "cuda":
        old = os.environ.get("TEPAD_CUDA")
        os.environ["TEPAD_CUDA"] = "emulate"
        try:
            mod = tepad.build(s, list(inputs) + outs, target="cuda")
        finally:
            if old is None:
                del os.environ["TEPAD_CUDA"]
            else:
                os.environ["TEPAD_CUDA"] = old
    else:
        mod = tepad.build(s, list(inputs) + outs, target=target)
    shapes = out_shapes or [[int(d) for d in o.shape] for o in outs]
    results = [np.zeros(shp, o.dtype) for shp, o in zip(shapes, outs)]
    mod(*arrays, *results)
    return results[0] if single else results


def rand(shape, dtype="float32", lo=-1.0, hi=1.0):
    return (RNG.random(shape) * (hi - lo) + lo).astype(dtype)


def placeholder(a, name):
    return te.placeholder(a.shape, dtype=str(a.dtype), name=name)
