"""Thread-bound loops (``s[T].bind(iv, te.thread_axis(tag))``) in the lowered IR, and the CPU
build's refusal of them.

Lowering a bound leaf emits what TVM's MakeLoopNest emits: no ``For``, but
``AttrStmt(thread_iv, "thread_extent", extent)`` around the leaf's body, and the leaf's index
is the thread variable (``thread_iv.var``; the range's ``min``, 0, when the extent is 1 or
when the stage's storage scope is private to that thread); ``vthread`` gives a
``virtual_thread`` attribute. The thread variable ranges over ``[0, extent)`` inside the
attribute (the simplifier reads it so) and is the kernel's everywhere (the IR verifier accepts
it in a region written outside its launch, as TVM's lowering produces for stages attached
inside a bound loop). So a bound schedule lowers and prints as TVM prints it; building it needs a GPU
code generator, which tepad's ``llvm`` target is not: ``check_cpu_buildable`` refuses it with
the stage and axis named.
"""
from __future__ import annotations

from ..errors import TepadError
from ..tir.expr import IntImm, cast
from ..tir.functor import Visitor, post_order_visit
from ..tir.launch import THREAD_EXTENT
from ..tir.stmt import BufferStore, ProducerStore
from ..tir.storage_scope import storage_rank

VIRTUAL_THREAD = "virtual_thread"


def bound_thread(stage, iv):
    """The thread IterVar leaf ``iv`` of ``stage`` is bound to, or None."""
    attr = stage.iter_var_attrs.get(iv)
    return attr.bind_thread if attr is not None else None


# TVM's ranks (thread_storage_scope.h): a stage stored at a rank above a thread's rank holds
# one copy per thread, so that thread's index does not enter the stage's own indices
_STORAGE_RANK = {"": 0, "global": 0, "shared": 1, "warp": 2, "local": 3}


def _thread_rank(tag: str) -> int:
    return 0 if tag.startswith("blockIdx") else 1


def thread_nest_items(stage, iv, thread_iv, r) -> tuple[list, object]:
    """Loop-nest items and the index value of leaf ``iv`` bound to ``thread_iv`` over range
    ``r`` (TVM's MakeLoopNest for a bound leaf):

    * ``vthread`` / ``cthread``: ``AttrStmt(thread_iv, "virtual_thread", extent)``, index the
      thread var;
    * ``pipeline``: ``AttrStmt(thread_iv, "pipeline_exec_scope", 1)``, index ``r.min``;
    * a GPU thread: ``AttrStmt(thread_iv, "thread_extent", extent)``; the index is the thread
      var, or ``r.min`` when the extent is 1 or when the stage's storage scope sits below the
      thread (a ``local`` stage under ``threadIdx``: each thread has its own copy).

    A bound leaf must start at 0 (``normalize`` rebases only unbound axes)."""
    tag = thread_iv.thread_tag
    if not (isinstance(r.min, IntImm) and r.min.value == 0):
        raise TepadError(f"stage {stage.name}: axis {iv.name} bound to {tag} starts at "
                         f"{r.min}, a thread index starts at 0; a bound axis is not rebased, "
                         f"so split the axis before binding and bind the parts, which start at 0 "
                         f"(o, i = s[{stage.name}].split({iv.name}, factor=...); "
                         f"s[{stage.name}].bind(o, ...))")
    var = thread_iv.var
    ext = r.extent if r.extent.dtype == var.dtype else cast(var.dtype, r.extent)
    own = var if var.dtype == iv.var.dtype else cast(iv.var.dtype, var)
    if tag in ("vthread", "cthread"):
        if not (isinstance(r.extent, IntImm) and r.extent.value > 0):
            raise TepadError(f"stage {stage.name}: axis {iv.name} bound to {tag} has extent "
                             f"{r.extent}; a virtual thread needs a positive constant extent")
        return [("attr", thread_iv, VIRTUAL_THREAD, ext)], own
    if tag == "pipeline":
        return [("attr", thread_iv, "pipeline_exec_scope", ext)], r.min
    items = [("attr", thread_iv, THREAD_EXTENT, ext)]
    if isinstance(r.extent, IntImm) and r.extent.value == 1:
        return items, r.min
    scope = storage_rank(stage.scope) if stage.scope else ""
    if scope == "" or _STORAGE_RANK.get(scope, 0) <= _thread_rank(tag):
        return items, own
    if scope == "warp" and tag == "threadIdx.x":
        return items, own
    return items, r.min


def thread_var_ranges(stage, rmap) -> dict:
    """``{thread var: range}`` for the bound leaves of ``stage`` (what a bound check proves
    facts about: the loop value of a bound leaf is its thread var)."""
    out = {}
    for iv in stage.leaf_iter_vars:
        t = bound_thread(stage, iv)
        if t is not None and iv in rmap:
            out[t.var] = rmap[iv]
    return out


def schedule_thread_bindings(s) -> list:
    """``[(stage, leaf IterVar, thread IterVar)]`` for every binding that lowering emits (the
    stage is not inlined and the axis is still a leaf)."""
    out = []
    for st in s.stages:
        if st.attach_type.name in ("Inline", "InlinedAlready"):
            continue
        for iv in st.leaf_iter_vars:
            t = bound_thread(st, iv)
            if t is not None:
                out.append((st, iv, t))
    return out


class _Launches(Visitor):
    """Thread-binding attributes in program order (outer before inner, first before next)."""

    def __init__(self):
        self.found = []

    def visit_AttrStmt(self, n):
        if n.attr_key in (THREAD_EXTENT, VIRTUAL_THREAD):
            written = []

            def store(m):
                name = m.buffer.name if isinstance(m, BufferStore) else \
                    m.producer.name if isinstance(m, ProducerStore) else None
                if name is not None and name not in written:
                    written.append(name)
            post_order_visit(n.body, store)
            self.found.append((n.node, written))
        self.generic_visit(n)


def func_thread_bindings(func) -> list:
    """``[(thread IterVar, [names of the buffers written under it])]`` for every
    ``thread_extent`` / ``virtual_thread`` attribute of a lowered function, in program order
    (outer launches before the ones they enclose)."""
    v = _Launches()
    v.visit(func.body)
    return v.found


def check_cpu_buildable(s_or_func, target_name: str = "llvm") -> None:
    """Raise TepadError when a schedule (or lowered PrimFunc) binds loops to GPU threads:
    the ``llvm`` target runs loops on the CPU, which has no thread grid to launch."""
    if hasattr(s_or_func, "stages"):
        found = schedule_thread_bindings(s_or_func)
        if found:
            st, iv, t = found[0]
            raise TepadError(
                f"stage {st.name}: axis {iv.name} is bound to {t.thread_tag}; the "
                f"{target_name!r} target builds CPU loops and cannot launch GPU threads; "
                "build it for the GPU with target='cuda' (with TEPAD_CUDA=emulate it runs on "
                "the CPU through the GPU emulator; `tepad run FILE.py --target cuda`), or for "
                f"the CPU remove the bind (s[{st.name}].parallel({iv.name}) for CPU threads)")
        return
    if hasattr(s_or_func, "body"):
        found = func_thread_bindings(s_or_func)
        if found:
            t, written = found[0]
            what = f"stage {', '.join(written)}: " if written else ""
            tag = getattr(t, "thread_tag", None) or getattr(t, "name", t)
            raise TepadError(
                f"{what}a loop is bound to {tag} (thread_extent in kernel "
                f"{s_or_func.name}); the {target_name!r} target builds CPU loops and cannot "
                f"launch GPU threads (remove the bind from the schedule)")


__all__ = ["THREAD_EXTENT", "VIRTUAL_THREAD", "bound_thread", "thread_nest_items",
           "thread_var_ranges",
           "schedule_thread_bindings", "func_thread_bindings", "check_cpu_buildable"]
