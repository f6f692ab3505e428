"""What the tutorial tests share: loop kinds and allocations of a lowered function."""
from tepad import tir
from tepad.tir.stmt_functor import post_order_visit


def loops(func):
    """``{loop var name: ForKind}`` of every For in ``func`` (a PrimFunc or an IRModule), in
    the order the loops appear in the printed function (outer before inner)."""
    if isinstance(func, tir.IRModule):
        func = func["main"]
    found = []
    post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, tir.For) else None)
    text = func.script()
    found.sort(key=lambda n: text.index(f"for {n.loop_var.name.replace('.', '_')} in"))
    return {n.loop_var.name: n.kind for n in found}


def kinds(func, kind):
    """Names of the loops of ``func`` of the given ``ForKind``."""
    return sorted(name for name, k in loops(func).items() if k == kind)


def allocations(func):
    """Names of the buffers ``func`` allocates (its scratch memory)."""
    if isinstance(func, tir.IRModule):
        func = func["main"]
    out = []
    post_order_visit(func.body, lambda n: out.append(n.buffer_var.name)
                     if isinstance(n, tir.Allocate) else None)
    return out


def launches(func):
    """``[(thread tag, extent)]`` of the thread launches (thread_extent attributes), outer
    first."""
    if isinstance(func, tir.IRModule):
        func = func["main"]
    return [(t.thread_tag, t_ext) for t, t_ext in _launch_extents(func)]


def _launch_extents(func):
    found = []
    post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, tir.AttrStmt)
                     and n.attr_key == "thread_extent" else None)
    found.reverse()              # post order: an enclosing launch comes after what it holds
    return [(n.node, n.value) for n in found]
