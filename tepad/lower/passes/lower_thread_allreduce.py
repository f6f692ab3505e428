"""lower_thread_allreduce: ``tvm_thread_allreduce`` -> a shared-memory tree reduction (TVM's
LowerThreadAllreduce, without the warp-shuffle path).

The call, as ScheduleOps emits it for a reduce axis bound to ``threadIdx``: under
``AttrStmt(combiner, "reduce_scope", 0)``, ``Evaluate(tvm_thread_allreduce(uint32 n, values
(n), condition, result data vars (n), reducing thread vars...))``. Guarantees:

* no ``tvm_thread_allreduce`` call and no ``reduce_scope`` attribute remains;
* the threads that share the other thread indices of the block (a *group*; every
  ``threadIdx`` tag of the kernel counts, a tag launched only elsewhere in the kernel is
  launched again around the tree) reduce separately: each value gets a ``shared`` buffer of ``groups * R`` elements (``R`` the
  product of the reducing threads' extents); thread ``r`` of group ``g`` stores its value
  (the combiner's identity where the condition is false) at ``g * R + r``, then every step
  halves the active threads (``R`` not a power of two: the first step folds the part above
  the largest power of two below it), with a barrier after the store and after each step,
  all outside the branches on the thread index; every thread then reads its group's result
  into the local result buffer(s).

Barriers for later reuse of the buffers are thread_sync's (it runs after this pass). A
reduction under a branch or loop bound that depends on the thread index is a TepadError:
not every thread would reach its barriers.
"""
from __future__ import annotations

from ...errors import TepadError
from ...tir import op as tirop
from ...tir.buffer import Buffer
from ...tir.expr import BufferLoad, Call, IntImm, Var, add, mul
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, collect_vars
from ...tir.stmt import Allocate, AttrStmt, BufferStore, Evaluate, IfThenElse, LetStmt, seq
from ..gpu_kernel import kernel_launches
from ...tir.launch import THREAD_TAGS, is_launch, launch_tag, launch_var
from .thread_sync import make_sync
from ...tir.transform import register_pass

THREAD_ALLREDUCE = "tir.tvm_thread_allreduce"
REDUCE_SCOPE = "reduce_scope"


def _linear(vars_extents):
    """``v0 + e0 * (v1 + e1 * v2)`` for ``[(v0, e0), (v1, e1), (v2, e2)]``; 0 when empty."""
    out, scale = None, 1
    for v, e in vars_extents:
        term = v if scale == 1 else mul(v, IntImm(scale, v.dtype))
        out = term if out is None else add(out, term)
        scale *= e
    return out if out is not None else IntImm(0, "int32"), scale


class _Lower(Mutator):
    def __init__(self, func_name):
        self.func_name = func_name
        self.scope = []           # enclosing launches: (tag, var, extent)
        self.count = 0
        self.divergent = []       # enclosing thread-dependent conditions / loop bounds
        self.varying = set()      # let vars computed from a thread index
        self.kernel_threads = {}  # tag -> the kernel's first launch of each threadIdx tag

    def _thread_dependent(self, *exprs) -> bool:
        threads = {var for tag, var, _ in self.scope if tag.startswith("threadIdx")}
        return bool(threads and collect_vars(list(exprs)) & (threads | self.varying))

    def visit_LetStmt(self, s):
        if self._thread_dependent(s.value):
            self.varying.add(s.var)
        return self.generic_visit(s)

    def visit_IfThenElse(self, s):
        if not self._thread_dependent(s.condition):
            return self.generic_visit(s)
        self.divergent.append(s.condition)
        out = self.generic_visit(s)
        self.divergent.pop()
        return out

    def visit_For(self, s):
        if not self._thread_dependent(s.min, s.extent):
            return self.generic_visit(s)
        self.divergent.append(s.extent)
        out = self.generic_visit(s)
        self.divergent.pop()
        return out

    def visit_AttrStmt(self, s):
        if is_launch(s) and not self.scope:
            # every thread index of the kernel, launched here or in a sibling subtree: all
            # of the block's threads run the reduction, so each index separates groups
            self.kernel_threads = {}
            for a in kernel_launches(s):
                tag = launch_tag(a)
                if tag in THREAD_TAGS and tag not in self.kernel_threads:
                    self.kernel_threads[tag] = a
        if is_launch(s):
            ext = s.value.value if isinstance(s.value, IntImm) else None
            self.scope.append((launch_tag(s), launch_var(s), ext))
            body = self.visit(s.body)
            self.scope.pop()
            return s if body is s.body else AttrStmt(s.node, s.attr_key, s.value, body)
        if s.attr_key == REDUCE_SCOPE and isinstance(s.body, Evaluate) and \
                isinstance(s.body.value, Call) and s.body.value.op == THREAD_ALLREDUCE:
            if self.divergent:
                raise TepadError(
                    f"kernel {self.func_name}: a cross-thread reduction sits under a condition "
                    f"on the thread index ({self.divergent[-1]}); its barriers must be reached "
                    "by every thread of the block (compute the reduction at a loop outside "
                    "the guard)")
            return self.lower(s.node, s.body.value)
        return self.generic_visit(s)

    def _in_scope(self):
        """``{tag: (var, extent)}`` of the innermost launch of each tag around here."""
        out = {}
        for tag, var, ext in self.scope:
            out[tag] = (var, ext)
        return out

    def lower(self, combiner, call):
        args = list(call.args)
        n = int(args[0].value)
        values, cond = args[1:1 + n], args[1 + n]
        results = args[2 + n:2 + 2 * n]
        reducing = args[2 + 2 * n:]
        here = self._in_scope()
        tag_of = {var: tag for tag, var, _ in self.scope}
        red_tags = []
        for v in reducing:
            tag = tag_of.get(v)
            if tag is None:
                raise TepadError(f"kernel {self.func_name}: a cross-thread reduction over "
                                 f"{v.name}, which is no thread launched around it")
            if not tag.startswith("threadIdx"):
                raise TepadError(f"kernel {self.func_name}: a reduction across {tag} ({v.name}): "
                                 "blocks cannot combine values; a reduction runs across "
                                 "threadIdx only (bind its axis to threadIdx.x/y/z, or leave "
                                 "it a loop)")
            red_tags.append(tag)
        for tag in THREAD_TAGS:
            if tag in here and here[tag][1] is None:
                raise TepadError(f"kernel {self.func_name}: {tag} has an extent that is not "
                                 "a constant; a cross-thread reduction in its block needs "
                                 "constant thread extents")
        # thread indices of the block not launched around here are launched again around
        # the tree (same extent, same hardware index) so its groups can tell them apart
        relaunch = [self.kernel_threads[t] for t in THREAD_TAGS
                    if t in self.kernel_threads and t not in here]
        for a in relaunch:
            if not isinstance(a.value, IntImm):
                raise TepadError(f"kernel {self.func_name}: {launch_tag(a)} has an extent "
                                 "that is not a constant; a cross-thread reduction in its "
                                 "block needs constant thread extents")
            here[launch_tag(a)] = (launch_var(a), a.value.value)
        red = [here[t] for t in THREAD_TAGS if t in red_tags]
        grp = [here[t] for t in THREAD_TAGS if t in here and t not in red_tags]
        r, R = _linear(red)
        g, G = _linear(grp)
        self.count += 1
        bufs = [Buffer([G * R], v.dtype, f"red_buf{k}" if self.count == 1 else
                       f"red_buf{k}_{self.count}", scope="shared") for k, v in enumerate(values)]
        base = mul(g, IntImm(R, g.dtype)) if G > 1 else None
        idx = r if base is None else add(base, r)

        def at(off=0):
            return idx if off == 0 else add(idx, IntImm(off, idx.dtype))

        stmts = []
        stores = []
        for k, (b, v) in enumerate(zip(bufs, values)):
            ident = combiner.identity(k)
            val = v if isinstance(cond, IntImm) and cond.value else \
                tirop.if_then_else(cond, v, ident)
            stores.append(BufferStore(b, val, [idx]))
        stmts += stores + [make_sync()]
        # the tree: fold [0, R) down to element 0 of each group. half: the largest power of
        # two below R; the first step folds [half, R) onto [0, R - half) (R - half == half
        # when R is a power of two), then each step halves
        if R > 1:
            half = 1
            while half * 2 < R:
                half *= 2
            bound, off = R - half, half
            while off >= 1:
                stmts += [IfThenElse(r < IntImm(bound, r.dtype),
                                     self._step(combiner, bufs, at, off)), make_sync()]
                off //= 2
                bound = off
        first = idx if R == 1 else (base if base is not None else IntImm(0, "int32"))
        res_bufs = [Buffer([1], b.dtype, v.name, data=v, scope="local")
                    for b, v in zip(bufs, results)]
        stmts += [BufferStore(rb, BufferLoad(b, [first]), [IntImm(0)])
                  for rb, b in zip(res_bufs, bufs)]
        body = seq(*stmts)
        for b in reversed(bufs):
            body = Allocate(b.data, b.dtype, [G * R], IntImm(1, "bool"), body,
                            {"scope": "shared"})
        for a in reversed(relaunch):
            body = AttrStmt(a.node, a.attr_key, a.value, body)
        return body

    @staticmethod
    def _step(combiner, bufs, at, off):
        """``buf[i] = combine(buf[i], buf[i + off])`` for every value, all read first."""
        olds = [BufferLoad(b, [at()]) for b in bufs]
        others = [BufferLoad(b, [at(off)]) for b in bufs]
        news = combiner.combine_all(olds, others)
        if len(bufs) == 1:
            return BufferStore(bufs[0], news[0], [at()])
        tmps = [Var(f"{b.name}.v", b.dtype) for b in bufs]
        body = seq(*[BufferStore(b, t, [at()]) for b, t in zip(bufs, tmps)])
        for t, e in reversed(list(zip(tmps, news))):
            body = LetStmt(t, e, body)
        return body


@register_pass("LowerThreadAllreduce")
def lower_thread_allreduce(func: PrimFunc) -> PrimFunc:
    """``func`` with every cross-thread reduction lowered (see the module)."""
    body = _Lower(func.name).visit(func.body)
    return func if body is func.body else func.with_body(body)


__all__ = ["lower_thread_allreduce", "THREAD_ALLREDUCE", "REDUCE_SCOPE"]
