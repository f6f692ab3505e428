"""The operations a definition may draw, one function each: ``op_<kind>(g, x)`` appends a new
``te.compute`` reading tensor ``x`` (and maybe others) through the ``DefinitionDrawer`` ``g``,
or raises ``GenerationRefused`` when the op does not fit ``x``."""
from __future__ import annotations

from .case import GenerationRefused, Tens


def op_elementwise(g, x):
    nm = g.fresh()
    iv = g.idx(len(x.dims))
    c1, c2 = g.const(x.dtype, 1, 3), g.const(x.dtype)   # c1 != 0: keep reading x
    if g.src.flag(30):
        c1 = "-" + c1
    if x.dtype.startswith("float"):
        f = g.src.pick([f"{x.name}[{', '.join(iv)}] * {c1} + {c2}",
                        f"tir.max({x.name}[{', '.join(iv)}], tir.const({c1}, {x.dtype!r}))",
                        f"te.abs({x.name}[{', '.join(iv)}]) - {c2}",
                        f"{x.name}[{', '.join(iv)}] * {c1} + ({' - '.join(iv)}).astype("
                        f"{x.dtype!r})"])
    else:
        f = g.src.pick([f"{x.name}[{', '.join(iv)}] * {c1} + {c2}",
                        f"tir.min({x.name}[{', '.join(iv)}], tir.const({c1}, {x.dtype!r}))",
                        f"{x.name}[{', '.join(iv)}] * {c1} + ({' - '.join(iv)}).astype("
                        f"{x.dtype!r})"])
    g.emit(Tens(nm, list(x.dims), x.dtype),
           f"{nm} = te.compute({g.shape_text(x.dims)}, lambda {', '.join(iv)}: {f}, "
           f"name={nm!r})")


def op_divmod(g, x):
    if x.dtype.startswith("float"):
        raise GenerationRefused()
    nm = g.fresh()
    iv = g.idx(len(x.dims))
    d = g.src.pick(["3", "4", "-3", "7"])
    m = g.src.pick(["4", "5", "-4"])
    ld = f"{x.name}[{', '.join(iv)}]"
    g.emit(Tens(nm, list(x.dims), x.dtype),
           f"{nm} = te.compute({g.shape_text(x.dims)}, lambda {', '.join(iv)}: "
           f"{ld} // tir.const({d}, {x.dtype!r}) + {ld} % tir.const({m}, {x.dtype!r}), "
           f"name={nm!r})")


def _compatible(g, x, same_dtype=True):
    return [t for t in g.case.tensors
            if len(t.dims) == len(x.dims) and (t.dtype == x.dtype or not same_dtype) and
            all(a[0] == b[0] for a, b in zip(t.dims, x.dims))]


def op_binary(g, x):
    others = _compatible(g, x)
    y = g.src.pick(others)
    nm = g.fresh()
    iv = g.idx(len(x.dims))
    dims = [(a[0], min(a[1], b[1])) for a, b in zip(x.dims, y.dims)]
    a, b = f"{x.name}[{', '.join(iv)}]", f"{y.name}[{', '.join(iv)}]"
    f = g.src.pick([f"{a} + {b}", f"{a} - {b}", f"{a} * {b}", f"tir.max({a}, {b})",
                    f"tir.min({a}, {b})"])
    g.emit(Tens(nm, dims, x.dtype),
           f"{nm} = te.compute({g.shape_text(dims)}, lambda {', '.join(iv)}: {f}, "
           f"name={nm!r})")


def op_broadcast(g, x):
    if len(x.dims) != 2:
        raise GenerationRefused()
    axis = g.src.int(0, 1)
    vs = [t for t in g.case.tensors if len(t.dims) == 1 and t.dtype == x.dtype and
          t.dims[0][0] == x.dims[axis][0]]
    if not vs:
        raise GenerationRefused()
    v = g.src.pick(vs)
    nm = g.fresh()
    dims = list(x.dims)
    dims[axis] = (dims[axis][0], min(dims[axis][1], v.dims[0][1]))
    iv = "ij"[axis]
    op = g.src.pick(["+", "*", "-"])
    g.emit(Tens(nm, dims, x.dtype),
           f"{nm} = te.compute({g.shape_text(dims)}, lambda i, j: "
           f"{x.name}[i, j] {op} {v.name}[{iv}], name={nm!r})")


def op_outer(g, x):
    if len(x.dims) != 1:
        raise GenerationRefused()
    vs = [t for t in g.case.tensors if len(t.dims) == 1 and t.dtype == x.dtype]
    v = g.src.pick(vs)
    nm = g.fresh()
    dims = [x.dims[0], v.dims[0]]
    g.emit(Tens(nm, dims, x.dtype),
           f"{nm} = te.compute({g.shape_text(dims)}, lambda i, j: "
           f"{x.name}[i] * {v.name}[j], name={nm!r})")


def op_stencil(g, x):
    nm = g.fresh()
    offs = [g.src.int(0, 2) for _ in x.dims]
    if not any(offs):
        offs[-1] = 1
    dims = [(b, o - d) for (b, o), d in zip(x.dims, offs)]
    iv = g.idx(len(x.dims))
    shifted = ", ".join(f"{v} + {d}" if d else v for v, d in zip(iv, offs))
    first = ", ".join(f"{v} + {d}" if (d and k == 0) else v
                      for k, (v, d) in enumerate(zip(iv, offs)))
    c = g.const(x.dtype, 1, 3)
    g.emit(Tens(nm, dims, x.dtype),
           f"{nm} = te.compute({g.shape_text(dims)}, lambda {', '.join(iv)}: "
           f"{x.name}[{', '.join(iv)}] + {x.name}[{shifted}] * {c} + {x.name}[{first}], "
           f"name={nm!r})")


def op_pad(g, x):
    nm = g.fresh()
    offs = [g.src.int(0, 2) for _ in x.dims]
    if not any(offs):
        offs[0] = 1
    iv = g.idx(len(x.dims))
    cond = ", ".join(f"{v} >= {d}" for v, d in zip(iv, offs) if d)
    src_idx = ", ".join(f"{v} - {d}" if d else v for v, d in zip(iv, offs))
    zero = "0.0" if x.dtype.startswith("float") else "0"
    g.emit(Tens(nm, list(x.dims), x.dtype),
           f"{nm} = te.compute({g.shape_text(x.dims)}, lambda {', '.join(iv)}: "
           f"te.if_then_else(tir.all({cond}), {x.name}[{src_idx}], "
           f"tir.const({zero}, {x.dtype!r})), name={nm!r})")


def op_transpose(g, x):
    if len(x.dims) != 2:
        raise GenerationRefused()
    nm = g.fresh()
    dims = [x.dims[1], x.dims[0]]
    g.emit(Tens(nm, dims, x.dtype),
           f"{nm} = te.compute({g.shape_text(dims)}, lambda i, j: {x.name}[j, i], "
           f"name={nm!r})")


def op_cast(g, x):
    to = g.src.pick([d for d in g.cfg.dtypes if d != x.dtype] or [x.dtype])
    nm = g.fresh()
    iv = g.idx(len(x.dims))
    ld = f"{x.name}[{', '.join(iv)}]"
    if x.dtype.startswith("float") and not to.startswith("float"):
        # keep float -> int conversions in range (out of range is undefined behaviour in
        # LLVM's fptosi and differs from numpy): the float may come from an int tensor
        ld = (f"te.floor(tir.min(tir.max({ld} * 4.0, tir.const(-100.0, {x.dtype!r})), "
              f"tir.const(100.0, {x.dtype!r})))")
    g.emit(Tens(nm, list(x.dims), to),
           f"{nm} = te.compute({g.shape_text(x.dims)}, lambda {', '.join(iv)}: "
           f"({ld}).astype({to!r}), name={nm!r})")


def _reducer(g):
    return g.src.pick(["te.sum", "te.max", "te.min"])


def op_window(g, x):
    nm = g.fresh()
    axis = g.src.int(0, len(x.dims) - 1)
    win = g.src.int(1, 3)
    dims = list(x.dims)
    dims[axis] = (dims[axis][0], dims[axis][1] - (win - 1))
    iv = g.idx(len(x.dims))
    rn = f"r{g.count}"
    idx = ", ".join(f"{v} + {rn}" if k == axis else v for k, v in enumerate(iv))
    red = _reducer(g)
    if not g.fits(dims):
        raise GenerationRefused()
    g.case.run(f"{rn} = te.reduce_axis((0, {win}), name={rn!r})")
    g.emit(Tens(nm, dims, x.dtype, reduction=True),
           f"{nm} = te.compute({g.shape_text(dims)}, lambda {', '.join(iv)}: "
           f"{red}({x.name}[{idx}], axis={rn}), name={nm!r})")


def op_rowsum(g, x):
    if len(x.dims) != 2:
        raise GenerationRefused()
    nm = g.fresh()
    axis = g.src.int(0, 1)           # the axis reduced away
    keep = x.dims[1 - axis]
    rn = f"k{g.count}"
    red = _reducer(g) if g.src.flag(40) else "te.sum"
    idx = f"i, {rn}" if axis == 1 else f"{rn}, i"
    g.case.run(f"{rn} = te.reduce_axis((0, {g.extent_text(*x.dims[axis])}), "
               f"name={rn!r})")
    g.emit(Tens(nm, [keep], x.dtype, reduction=True),
           f"{nm} = te.compute({g.shape_text([keep])}, lambda i: "
           f"{red}({x.name}[{idx}], axis={rn}), name={nm!r})")


def op_matmul(g, x):
    if len(x.dims) != 2:
        raise GenerationRefused()
    ys = [t for t in g.case.tensors if len(t.dims) == 2 and t.dtype == x.dtype and
          t.dims[0][0] == x.dims[1][0]]
    if not ys:
        raise GenerationRefused()
    y = g.src.pick(ys)
    nm = g.fresh()
    kdim = (x.dims[1][0], min(x.dims[1][1], y.dims[0][1]))
    dims = [x.dims[0], y.dims[1]]
    rn = f"k{g.count}"
    if not g.fits(dims + [kdim]):
        raise GenerationRefused()
    g.case.run(f"{rn} = te.reduce_axis((0, {g.extent_text(*kdim)}), name={rn!r})")
    g.emit(Tens(nm, dims, x.dtype, reduction=True),
           f"{nm} = te.compute({g.shape_text(dims)}, lambda i, j: "
           f"te.sum({x.name}[i, {rn}] * {y.name}[{rn}, j], axis={rn}), name={nm!r})")


def op_scan(g, x):
    """A ``te.scan`` over the first axis of a 2-D ``x``: rows ``[0, t0)`` copied from ``x``,
    then ``S[t] = f(S[t - 1], x[t])`` (a running sum, max, or a scaled or shifted recurrence),
    sometimes through a body stage between the state and the update. Only the scan's output
    joins the case's tensors (the state, init, update and body stages are the scan's own:
    ``case.aux``)."""
    if len(x.dims) != 2:
        raise GenerationRefused()
    if not g.fits(x.dims):
        raise GenerationRefused()
    nm = g.fresh("S")
    d = x.dtype
    shape = g.shape_text(x.dims)
    rows = g.min_extent(*x.dims[0])
    t0 = 2 if rows is not None and rows >= 2 and g.src.flag(30) else 1
    w = g.extent_text(*x.dims[1])
    run = g.case.run
    inputs = ""
    pct = g.cfg.scan_inputs_percent
    if pct and g.src.flag(pct):
        # init and update read x through a stage the scan lists in inputs= (the body's
        # boundary only: the schedule may inline it)
        c = g.const(x.dtype, 1, 3)
        run(f"{nm}_x = te.compute({shape}, lambda t, j: {x.name}[t, j] * {c}, "
            f"name={nm + '_x'!r})")
        g.case.aux.append(f"{nm}_x")
        g.case.scan_inputs.append(f"{nm}_x")
        inputs = f", inputs=[{nm}_x]"
        x = Tens(f"{nm}_x", list(x.dims), x.dtype)
    run(f"{nm}_st = te.placeholder({shape}, {d!r}, name={nm + '_st'!r})")
    run(f"{nm}_init = te.compute(({t0}, {w}), lambda t, j: {x.name}[t, j], "
        f"name={nm + '_init'!r})")
    aux = [f"{nm}_st", f"{nm}_init"]
    prev = g.src.pick([f"{nm}_st[t - 1, j]", f"{nm}_st[t - 1, (j + 1) % ({w})]"])
    if g.src.flag(40):
        c = g.const(d, 1, 2)
        run(f"{nm}_h = te.compute({shape}, lambda t, j: {prev} * {c}, name={nm + '_h'!r})")
        aux.append(f"{nm}_h")
        prev = f"{nm}_h[t, j]"
    cur = f"{x.name}[t, j]"
    f = g.src.pick([f"{prev} + {cur}", f"tir.max({prev}, {cur})", f"{prev} - {cur}"])
    run(f"{nm}_up = te.compute({shape}, lambda t, j: {f}, name={nm + '_up'!r})")
    aux.append(f"{nm}_up")
    g.case.aux.extend(aux)
    g.emit(Tens(nm, list(x.dims), d),
           f"{nm} = te.scan({nm}_init, {nm}_up, {nm}_st{inputs}, name={nm!r})")


# the kinds in the order they are drawn (a choice indexes this order)
OPS = {
    "elementwise": op_elementwise, "binary": op_binary, "stencil": op_stencil,
    "window": op_window, "rowsum": op_rowsum, "matmul": op_matmul, "pad": op_pad,
    "broadcast": op_broadcast, "transpose": op_transpose, "cast": op_cast, "outer": op_outer,
    "divmod": op_divmod,
}

__all__ = ["OPS"]
