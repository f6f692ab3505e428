"""Small builders for hand-written flattened PrimFuncs."""
from tepad import tir


def make_func(buffers, body_fn, name="main"):
    """``buffers``: N-d arg Buffers. ``body_fn(*flat_buffers)`` builds the body."""
    params = [tir.Var(b.name, "handle") for b in buffers]
    flats = [b.get_flattened_buffer() for b in buffers]
    body = body_fn(*flats)
    return tir.PrimFunc(params, body, dict(zip(params, buffers)), {"global_symbol": name})


def loop(n, fbody, kind=tir.ForKind.SERIAL, name="i", start=0):
    i = tir.Var(name)
    return tir.For(i, start, n, kind, fbody(i))
