"""inject_double_buffer: a ``double_buffer`` stage's writes move one loop iteration ahead
(TVM's InjectDoubleBuffer).

Input (after storage_flatten; ScheduleOps wraps the producer of a stage marked
``double_buffer`` in ``AttrStmt(tensor, "double_buffer_scope", 1)`` and storage_flatten
names the allocation's var in it)::

    for i in range(n):                       # the innermost loop around the allocation
        B = allocate([e0, ...])
        attr B "double_buffer_scope" 1
            <producer of B at iteration i>
        <consumer of B at iteration i>

Output (``split_loop`` = f, the ``tir.InjectDoubleBuffer`` config; default 1; with 0, as in
TVM, the loop keeps its n iterations and the guard ``i + 1 < n`` skips the last write)::

    B = allocate([2 * e0, ...])              # two halves; half h starts at h * e0
    <producer at iteration 0, into half 0>                    # prologue
    for o in range((n - 1) // f):            # the main loop, its body repeated f times
        for each of the f iterations i = o*f + k:
            if i + 1 < n: attr B "double_buffer_write" 1
                              <producer at iteration i + 1, into half (i + 1) % 2>
            <consumer at iteration i, reading half i % 2>
    for each tail iteration i in [((n - 1) // f) * f, n):     # what the main loop left
        if i + 1 < n: <producer at i + 1>    # (only the last iteration has no next one)
        <consumer at i>

Half indices count from the loop's min. Let-bound variables between the loop and the
producer are substituted into the moved producer, so it computes iteration i + 1's values.
A symbolic ``n`` gets the prologue guarded by ``n > 0``. The moved writes are wrapped in
``attr B "double_buffer_write" 1`` (not in the tail, as in TVM): on GPUs thread_sync then
places one barrier per iteration, before the writes of half (i + 1) % 2 (iteration i - 1
read it), and none between those writes and the reads of half i % 2 that follow them; once
the iteration ends the writes count as ordinary ones, so the next iteration's top barrier,
or a barrier after the loop, orders them before their reads.

A scope this pass cannot double is left single-buffered (the same values, no overlap) with a
``TepadWarning`` naming the buffer and why: a parallel or vectorized loop, a loop between
the allocation and the producer, a GPU launch between the loop and the allocation (the loop
is outside the kernel), an allocation whose size changes with the loop, a producer that
reads a buffer the loop writes (a stage computed at the same loop before it: its values for
iteration i + 1 do not exist yet), or a pointer use of the buffer other than loads and
stores. A stage with no loop around its allocation (computed at the root, or at a loop of
one iteration) is left as it is, silently. Guarantee: no ``double_buffer_scope`` attr
remains.
"""
from __future__ import annotations

import warnings

from ...errors import TepadError, TepadWarning
from ...tir import Mutator, PrimFunc, Visitor, collect_vars
from ...tir.buffer import Buffer
from ...tir.expr import BufferLoad, IntImm, Var, floormod
from ...tir.functor import post_order_visit, substitute
from ...tir.ssa import convert_ssa
from ...tir.stmt import Allocate, AttrStmt, BufferStore, ForKind, IfThenElse, seq
from ...tir.transform import current_config, register_pass

DOUBLE_BUFFER_SCOPE = "double_buffer_scope"
DOUBLE_BUFFER_WRITE = "double_buffer_write"
_LAUNCHES = ("thread_extent", "virtual_thread")
CONFIG_KEY = "tir.InjectDoubleBuffer"


def double_buffer_config(config) -> dict:
    """``{"split_loop": f}`` from a ``tir.InjectDoubleBuffer`` config (a dict, or None for
    the default f = 1); anything else is a TepadError naming what is valid."""
    if config is None:
        return {"split_loop": 1}
    if not isinstance(config, dict) or set(config) - {"split_loop"}:
        raise TepadError(f"PassContext config {CONFIG_KEY}: takes {{'split_loop': int}}, "
                         f"got {config!r}")
    f = config.get("split_loop", 1)
    if isinstance(f, bool) or not isinstance(f, int) or f < 0:
        raise TepadError(f"PassContext config {CONFIG_KEY}: split_loop must be an int >= 0 "
                         f"(the main loop's body is repeated that many times; 0: the loop is "
                         f"not split, its last iteration skips the write), got {f!r}")
    return {"split_loop": f}


_NO_LOOP = "no loop encloses its allocation"


class _Plan:
    """What the detector found for one double-buffered allocation."""
    __slots__ = ("alloc", "loop", "lets", "stride", "why")

    def __init__(self, alloc, loop):
        self.alloc, self.loop, self.lets, self.why = alloc, loop, [], None
        self.stride = alloc.extents[0] if alloc.extents else None


class _Detect(Visitor):
    """Finds each double_buffer_scope's allocation and loop; records why one cannot be
    doubled (``plan.why``)."""

    def __init__(self):
        self.loops = []          # enclosing For nodes
        self.bound = []          # (var, value or None) bound inside the enclosing loops
        self.allocs = {}         # var -> (Allocate, depth in self.loops, len(self.bound))
        self.plans = {}          # var -> _Plan
        self.scoped = set()      # vars of every double_buffer_scope
        self.pointer_uses = set()
        self.launches = []       # per enclosing loop: thread launches entered inside it
        self.launched = set()    # allocations with a launch between them and their loop

    def visit_For(self, s):
        self.visit(s.min)
        self.visit(s.extent)
        self.loops.append(s)
        self.launches.append(0)
        mark = len(self.bound)
        self.bound.append((s.loop_var, None))
        self.visit(s.body)
        del self.bound[mark:]
        self.launches.pop()
        self.loops.pop()

    def visit_LetStmt(self, s):
        self.visit(s.value)
        self.bound.append((s.var, s.value))
        self.visit(s.body)
        self.bound.pop()

    def visit_Allocate(self, s):
        self.allocs[s.buffer_var] = (s, len(self.loops), len(self.bound))
        if self.launches and self.launches[-1]:
            self.launched.add(s.buffer_var)
        self.visit(s.extents)
        self.visit(s.condition)
        self.visit(s.body)

    def visit_AttrStmt(self, s):
        if s.attr_key in _LAUNCHES and self.launches:
            self.launches[-1] += 1
            self.generic_visit(s)
            self.launches[-1] -= 1
            return
        if s.attr_key != DOUBLE_BUFFER_SCOPE:
            return self.generic_visit(s)
        var = s.node
        self.scoped.add(var)
        entry = self.allocs.get(var)
        if entry is None or var in self.plans:
            self.visit(s.body)
            return
        alloc, depth, _ = entry
        plan = self.plans[var] = _Plan(alloc, self.loops[depth - 1] if depth else None)
        if depth == 0:
            plan.why = _NO_LOOP
        elif var in self.launched:
            plan.why = (f"a GPU launch lies between the loop {plan.loop.loop_var.name} and "
                        "its allocation (the allocation would leave the kernel)")
        elif len(self.loops) != depth:
            plan.why = "a loop lies between its allocation and its producer"
        elif plan.loop.kind not in (ForKind.SERIAL, ForKind.UNROLLED):
            plan.why = (f"the loop {plan.loop.loop_var.name} around it is "
                        f"{plan.loop.kind.name.lower()}")
        else:
            # vars bound inside the loop, outside the allocation: the hoisted allocation
            # may not use them; the moved producer gets their values substituted
            start = next(k for k, (v, _) in enumerate(self.bound)
                         if v is plan.loop.loop_var)
            inner = {v for v, _ in self.bound[start:]}
            if collect_vars(list(alloc.extents) + [alloc.condition]) & inner:
                plan.why = "its allocation's size changes with the loop " \
                           f"{plan.loop.loop_var.name}"
            plan.lets = [(v, val) for v, val in self.bound[start + 1:] if val is not None]
            late = sorted(v.name for v in _loaded(s.body) & _written_outside(plan.loop, s)
                          if v is not var)
            if late:
                plan.why = (f"its producer reads {', '.join(late)}, which the loop "
                            f"{plan.loop.loop_var.name} computes: only a stage whose inputs "
                            "are ready before the loop can be loaded an iteration ahead")
        self.visit(s.body)

    def visit_Var(self, v):
        self.pointer_uses.add(v)

    def visit_BufferLoad(self, e):
        self.visit(e.indices)

    def visit_BufferStore(self, s):
        self.visit(s.value)
        self.visit(s.indices)


class _Written(Visitor):
    """Vars of the buffers stored or allocated in a statement, except inside ``skip``."""

    def __init__(self, skip):
        self.skip, self.out = skip, set()

    def visit_AttrStmt(self, s):
        if s is not self.skip:
            self.generic_visit(s)

    def visit_BufferStore(self, s):
        self.out.add(s.buffer.data)
        self.generic_visit(s)

    def visit_Allocate(self, s):
        self.out.add(s.buffer_var)
        self.generic_visit(s)


def _written_outside(loop, scope) -> set:
    w = _Written(scope)
    w.visit(loop.body)
    return w.out


def _loaded(stmt) -> set:
    """Vars of the buffers ``stmt`` loads, and every Var it uses (a pointer passed on)."""
    out = set()

    def see(n):
        if isinstance(n, BufferLoad):
            out.add(n.buffer.data)
        elif isinstance(n, Var):
            out.add(n)
    post_order_visit(stmt, see)
    return out


class _StripWriteAttr(Mutator):
    def visit_AttrStmt(self, s):
        if s.attr_key == DOUBLE_BUFFER_WRITE:
            return self.visit(s.body)
        return self.generic_visit(s)


class _Inject(Mutator):
    def __init__(self, plans, split):
        self.plans = plans                  # var -> _Plan (the ones doubled)
        self.split = split
        self.buffers = {}                   # old flat Buffer -> doubled Buffer
        self.write_half = {}                # var -> placeholder Var of the written half
        self.in_scope = set()
        self.pre = {}                       # loop -> [prologue stmts]
        self.allocs = {}                    # loop -> [doubled Allocate (body unset)]

    def _buffer(self, buf):
        nb = self.buffers.get(buf)
        if nb is None:
            shape = list(buf.shape)
            shape[0] = shape[0] * 2
            nb = self.buffers[buf] = Buffer(shape, buf.dtype, buf.name, data=buf.data,
                                            axis_separators=buf.axis_separators,
                                            scope=buf.scope)
        return nb

    def _half_offset(self, var, write):
        plan = self.plans[var]
        loop = plan.loop
        half = self.write_half[var] if write else floormod(loop.loop_var - loop.min, 2)
        return half * plan.stride

    def visit_BufferStore(self, s):
        var = s.buffer.data
        s = self.generic_visit(s)
        if var not in self.plans:
            return s
        idx = list(s.indices)
        idx[0] = idx[0] + self._half_offset(var, var in self.in_scope)
        return BufferStore(self._buffer(s.buffer), s.value, idx)

    def visit_BufferLoad(self, e):
        var = e.buffer.data
        e = self.generic_visit(e)
        if var not in self.plans:
            return e
        idx = list(e.indices)
        idx[0] = idx[0] + self._half_offset(var, False)
        return BufferLoad(self._buffer(e.buffer), idx)

    def visit_Allocate(self, s):
        plan = self.plans.get(s.buffer_var)
        if plan is None:
            return self.generic_visit(s)
        body = self.visit(s.body)
        ext = list(s.extents)
        ext[0] = ext[0] * 2
        self.allocs.setdefault(plan.loop, []).append(
            Allocate(s.buffer_var, s.dtype, ext, s.condition, None, s.annotations))
        return body

    def visit_AttrStmt(self, s):
        if s.attr_key != DOUBLE_BUFFER_SCOPE:
            return self.generic_visit(s)
        var = s.node
        plan = self.plans.get(var)
        if plan is None:
            return self.visit(s.body)
        loop = plan.loop
        self.write_half[var] = Var(f"{loop.loop_var.name}.db", loop.loop_var.dtype)
        self.in_scope.add(var)
        body = self.visit(s.body)
        self.in_scope.discard(var)
        # the producer computes with the values its lets have at the iteration it writes
        for v, val in reversed(plan.lets):
            body = substitute(body, {v: val})
        i = loop.loop_var
        first = substitute(body, {i: loop.min, self.write_half[var]: IntImm(0, i.dtype)})
        self.pre.setdefault(loop, []).append(first)
        nxt = i + 1
        ahead = substitute(body, {i: nxt, self.write_half[var]: floormod(nxt - loop.min, 2)})
        # thread_sync reads the attr: the reads after it in this iteration use the other half
        ahead = AttrStmt(var, DOUBLE_BUFFER_WRITE, IntImm(1, "int32"), ahead)
        return IfThenElse(nxt < loop.min + loop.extent, ahead)

    def visit_For(self, s):
        loop = self.generic_visit(s)
        pre = self.pre.pop(s, None)
        if pre is None:
            return loop
        allocs = self.allocs.pop(s)
        out = seq(*pre, *self._split(loop))
        if not isinstance(loop.extent, IntImm):
            out = IfThenElse(loop.extent > 0, out)
        for a in reversed(allocs):
            out = a.replace(body=out)
        return out

    def _split(self, loop):
        """The loop as a main loop of (n - 1) // f rounds of f iterations and the tail."""
        f, i, lo, n = self.split, loop.loop_var, loop.min, loop.extent
        if f == 0 or (isinstance(n, IntImm) and n.value <= 0):
            return [loop]
        outer = Var(f"{i.name}.outer" if f > 1 else i.name, i.dtype)
        rounds = (n - 1) // f if not isinstance(n, IntImm) else IntImm((n.value - 1) // f,
                                                                        n.dtype)
        if f == 1:
            main = [loop.replace(loop_var=outer, extent=rounds,
                                 body=substitute(loop.body, {i: outer}))]
        else:
            body = seq(*[substitute(loop.body, {i: lo + outer * f + k}) for k in range(f)])
            main = [loop.replace(loop_var=outer, extent=rounds, body=body)]
        if isinstance(rounds, IntImm) and rounds.value == 0:
            main = []
        tail = []
        # after the loop, no barrier of a later iteration separates a write from the reads
        # of its half: the tail's writes are ordinary ones for thread_sync (as in TVM)
        plain = _StripWriteAttr().visit(loop.body)
        for k in range(f):
            idx = lo + rounds * f + k
            stmt = substitute(plain, {i: idx})
            if isinstance(n, IntImm):
                if rounds.value * f + k < n.value:
                    tail.append(stmt)
            else:
                tail.append(IfThenElse(rounds * f + k < n, stmt))
        return main + tail


def _double_buffer_from_context(func):
    """TVM's InjectDoubleBuffer(): split_loop comes from the PassContext config
    tir.InjectDoubleBuffer."""
    config = current_config().get(CONFIG_KEY)
    return inject_double_buffer(func, **double_buffer_config(config))


@register_pass("InjectDoubleBuffer", run=_double_buffer_from_context)
def inject_double_buffer(func: PrimFunc, split_loop: int = 1) -> PrimFunc:
    """TVM's InjectDoubleBuffer on a flattened function (see the module docstring);
    ``func`` itself when it has no ``double_buffer_scope``."""
    split = double_buffer_config({"split_loop": split_loop})["split_loop"]
    det = _Detect()
    det.visit(func.body)
    if not det.scoped:
        return func
    plans = {}
    for var in det.scoped:
        plan = det.plans.get(var)
        why = "no allocation encloses it" if plan is None else plan.why
        if why is None and var in det.pointer_uses:
            why = "its pointer is used other than by loads and stores"
        if why == _NO_LOOP:
            continue        # computed at the root (or its loop had one iteration): as TVM
        if why is not None:
            warnings.warn(f"double_buffer of {var.name}: left single-buffered: {why}",
                          TepadWarning, stacklevel=2)
            continue
        plans[var] = plan
    body = _Inject(plans, split).visit(func.body)
    # the producer and the loop body now appear several times: one binding per Var again
    return convert_ssa(func.with_body(body))


__all__ = ["inject_double_buffer", "double_buffer_config", "DOUBLE_BUFFER_SCOPE",
           "CONFIG_KEY"]
