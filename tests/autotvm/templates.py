"""Templates the autotvm tests share (registered on import)."""
from tepad import te, tir, autotvm
from tepad.autotvm.result import MeasureErrorNo


def matmul_definition(N, L, M, dtype):
    """TVM's autotvm_matmul_x86 matmul: ``(s, [A, B, C], (y, x, k))`` before any knob."""
    A = te.placeholder((N, L), name="A", dtype=dtype)
    B = te.placeholder((L, M), name="B", dtype=dtype)
    k = te.reduce_axis((0, L), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    y, x = s[C].op.axis
    return s, [A, B, C], (y, x, s[C].op.reduce_axis[0])


def matmul_with_splits(N, L, M, dtype):
    """The tutorial's split template (``define_split`` on both axes)."""
    s, (A, B, C), (y, x, k) = matmul_definition(N, L, M, dtype)
    cfg = autotvm.get_config()
    cfg.define_split("tile_y", y, num_outputs=2)
    cfg.define_split("tile_x", x, num_outputs=2)
    yo, yi = cfg["tile_y"].apply(s, C, y)
    xo, xi = cfg["tile_x"].apply(s, C, x)
    s[C].reorder(yo, xo, k, yi, xi)
    return s, [A, B, C]


matmul = autotvm.template("test/matmul")(matmul_with_splits)


#: the record each mode of ``test/faulty`` must get
FAULTY_CODES = {"ok": MeasureErrorNo.NO_ERROR, "wrong": MeasureErrorNo.WRONG_ANSWER,
                "crash": MeasureErrorNo.RUNTIME_DEVICE, "hang": MeasureErrorNo.RUN_TIMEOUT,
                "refuse": MeasureErrorNo.INSTANTIATION_ERROR, "ok2": MeasureErrorNo.NO_ERROR}


@autotvm.template("test/faulty")
def faulty(n):
    """A knob whose candidates are right, wrong, crash the process (abort), hang (sleep),
    are refused by the template, or right again."""
    A = te.placeholder((n,), name="A")
    cfg = autotvm.get_config()
    cfg.define_knob("mode", ["ok", "wrong", "crash", "hang", "refuse", "ok2"])
    mode = cfg["mode"].val
    if mode == "wrong":
        B = te.compute((n,), lambda i: A[i] + 2.0, name="B")
    elif mode == "crash":
        B = te.compute((n,), lambda i: A[i] + tir.Cast(
            "float32", tir.call_extern("int32", "abort")), name="B")
    elif mode == "hang":
        B = te.compute((n,), lambda i: A[i] + tir.Cast(
            "float32", tir.call_extern("int32", "sleep", 1000)), name="B")
    else:
        B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    if mode == "refuse":
        cfg.raise_error("refused by the template")
    s = te.create_schedule(B.op)
    return s, [A, B]


@autotvm.template("test/tiles")
def tiles(n):
    """Two split knobs on a 2-d elementwise kernel (a 7 x 7 space for n = 64)."""
    A = te.placeholder((n, n), name="A")
    B = te.compute((n, n), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    cfg = autotvm.get_config()
    y, x = B.op.axis
    cfg.define_split("ty", y, num_outputs=2)
    cfg.define_split("tx", x, num_outputs=2)
    yo, yi = cfg["ty"].apply(s, B, y)
    xo, xi = cfg["tx"].apply(s, B, x)
    s[B].reorder(yo, xo, yi, xi)
    return s, [A, B]


@autotvm.template("test/buildfault")
def buildfault(n):
    """A knob whose candidates kill (abort) or hang the process that instantiates them."""
    import os
    import time
    cfg = autotvm.get_config()
    cfg.define_knob("mode", ["ok", "abort", "hang", "ok2"])
    mode = cfg["mode"].val
    if mode == "abort" and getattr(cfg, "index", None) is not None:   # a ConfigEntity
        os.abort()
    if mode == "hang" and getattr(cfg, "index", None) is not None:
        time.sleep(1000)
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 3.0, name="B")
    return te.create_schedule(B.op), [A, B]
