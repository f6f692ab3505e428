"""hoist_if_then_else: TVM's HoistIfThenElse, moving an ``if`` statement above the loops and
scopes its condition does not depend on.

``hoist_if_then_else(func, support_block_scope_hoisting=False)``; as a pass object,
``tir.transform.HoistIfThenElse()`` reads ``support_block_scope_hosting`` (TVM's spelling)
from the PassContext config ``tir.HoistIfThenElse``.

Contract (TVM v0.18's rules):

- The "loops" an ``if`` may move above are the enclosing ``For`` statements and the enclosing
  ``AttrStmt`` scopes over a variable (a thread's ``thread_extent``, a pragma on a loop, a
  buffer's ``storage_scope``): the latter are *block scopes*.
- Walking out from the ``if``, the condition stops at the first loop that (a) binds a variable
  the condition uses (directly or through a ``LetStmt`` bound inside it), (b) has a sequence of
  statements directly in its body (the ``if`` then does not cover all of it), or (c) without
  block-scope mode, is a block scope. The ``if`` is placed just inside that loop; if the
  innermost loop already stops it, it stays. With no stopping loop it goes above all of them.
- Not hoisted at all: conditions that read buffers or call functions with side effects (their
  value may change between iterations), conditions using a ``LetStmt`` variable bound inside a
  loop, and, without block-scope mode, conditions using a variable of an enclosing block scope.
- ``for ...: if c: T else: E`` becomes ``if c: for ...: T else: for ...: E`` (no else loop
  when the ``if`` has none): in each copy of the loop, every ``if`` on that same condition
  is replaced by the branch it takes (TVM gets there by wrapping ``if c: L else: L`` and
  running Simplify; tepad removes only those ``if`` statements and leaves the other
  expressions as written). The copies are renamed into SSA form (``tir.ssa.convert_ssa``,
  applied whether or not anything moved, as TVM does).
- A thread variable launched again inside its own ``thread_extent`` scope with another extent
  is invalid IR: ``TepadError`` (TVM fails there too).

The same statements run for the same iterations in the same order. The pass is opt-in: it is
not in tepad's pipeline, nor in TVM's default lowering.
"""
from __future__ import annotations

from ...errors import TepadError
from ...tir import expr as E
from ...tir import stmt as S
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, collect_vars, post_order_visit
from ...tir.itervar import IterVar
from ...tir.ssa import convert_ssa
from ...tir.structural import structural_equal
from ...tir.transform import current_config, register_pass
from .remove_no_op import remove_no_op

CONFIG_KEY = "tir.HoistIfThenElse"
OPTION = "support_block_scope_hosting"

# calls that read or change state: a condition holding one is not loop-invariant
_STATEFUL_CALLS = ("tir.call_extern", "tir.call_packed", "tir.call_intrin",
                   "tir.call_llvm_intrin", "tir.tvm_call_packed", "tir.address_of",
                   "tir.tvm_thread_allreduce", "tir.tvm_warp_shuffle")


def hoist_if_then_else_config(config) -> dict:
    """The keyword arguments of ``hoist_if_then_else`` from a ``tir.HoistIfThenElse``
    PassContext config (``{"support_block_scope_hosting": bool}``), checked."""
    if config is None:
        return {"support_block_scope_hoisting": False}
    if not isinstance(config, dict):
        raise TepadError(f"PassContext config {CONFIG_KEY!r} takes a dict "
                         f"{{{OPTION!r}: bool}}, got {config!r}")
    unknown = [k for k in config if k != OPTION]
    if unknown:
        raise TepadError(f"PassContext config {CONFIG_KEY!r}: unknown option {unknown[0]!r}; "
                         f"the only option is {OPTION!r}")
    return {"support_block_scope_hoisting": bool(config.get(OPTION, False))}


def _scope_var(attr):
    """The variable an AttrStmt scopes (its IterVar's var, or a Var node), else None."""
    if isinstance(attr.node, IterVar):
        return attr.node.var
    if isinstance(attr.node, E.Var):
        return attr.node
    return None


def _pure(e) -> bool:
    bad = []

    def f(n):
        if isinstance(n, E.BufferLoad) or (isinstance(n, E.Call) and
                                           str(n.op) in _STATEFUL_CALLS):
            bad.append(n)
    post_order_visit(e, f)
    return not bad


class _Loop:
    __slots__ = ("var", "node", "is_block", "sequential", "conditions")

    def __init__(self, var, node, is_block):
        self.var, self.node, self.is_block = var, node, is_block
        self.sequential = False
        self.conditions = []        # (condition, has_else), in visiting order


class _Collector:
    """Which conditions go above which loop (TVM's HoistInfoCollector, for ``if``
    statements)."""

    def __init__(self, block_scope: bool):
        self.block_scope = block_scope
        self.active = []            # _Loop, outer first
        self.block_vars = set()
        self.extents = {}           # thread var -> extent of its enclosing launch
        self.let_loops = {}         # let var -> loop vars its value depends on
        self.let_vars = set()       # let vars in scope
        self.done = {}              # id(loop node) -> _Loop

    def visit(self, s):
        if isinstance(s, S.For):
            self._loop(s, s.loop_var, False)
        elif isinstance(s, S.AttrStmt) and _scope_var(s) is not None:
            var = _scope_var(s)
            outer = self.extents.get(var)
            if s.attr_key == "thread_extent":
                if outer is not None and not structural_equal(outer, s.value):
                    raise TepadError(
                        f"HoistIfThenElse: thread {var.name} is launched with extent "
                        f"{s.value} inside its own launch with extent {outer}; a thread "
                        f"variable has one extent per kernel")
                self.extents[var] = s.value
            self.block_vars.add(var)
            self._loop(s, var, True)
            self.block_vars.discard(var)
            if s.attr_key == "thread_extent":
                if outer is None:
                    del self.extents[var]
                else:
                    self.extents[var] = outer
        elif isinstance(s, S.LetStmt):
            deps = set()
            for v in collect_vars(s.value):
                if any(v is lp.var for lp in self.active):
                    deps.add(v)
                deps |= self.let_loops.get(v, set())
            self.let_loops[s.var] = deps
            self.let_vars.add(s.var)
            self._children(s)
            self.let_loops.pop(s.var, None)
            self.let_vars.discard(s.var)
        elif isinstance(s, S.IfThenElse):
            self._condition(s.condition, s.else_case is not None)
            self._children(s)
        elif isinstance(s, S.SeqStmt):
            if self.active:
                self.active[-1].sequential = True
            self._children(s)
        else:
            self._children(s)

    def _children(self, s):
        for v in s.field_values():
            if isinstance(v, S.Stmt):
                self.visit(v)
            elif isinstance(v, (tuple, list)):
                for x in v:
                    if isinstance(x, S.Stmt):
                        self.visit(x)

    def _loop(self, s, var, is_block):
        info = _Loop(var, s, is_block)
        self.active.append(info)
        self._children(s)
        self.active.pop()
        self.done[id(s)] = info

    def _condition(self, cond, has_else):
        if not self.active or not _pure(cond):
            return
        used = collect_vars(cond)
        if any(v in self.let_vars for v in used):
            return          # TVM's HoistIfThenElse hoists no let bindings
        if not self.block_scope and any(v in self.block_vars for v in used):
            return
        dest = self.active[0]
        for k in range(len(self.active) - 1, -1, -1):
            lp = self.active[k]
            uses = lp.var in used or any(lp.var in self.let_loops.get(v, ()) for v in used)
            if lp.sequential or uses or (lp.is_block and not self.block_scope):
                if k == len(self.active) - 1:
                    return
                dest = self.active[k + 1]
                break
        if not dest.sequential:
            dest.conditions.append((cond, has_else))


class _Known(Mutator):
    """A loop copy under a hoisted condition: each ``if`` on that same condition becomes the
    branch the condition takes (an empty else becomes a no-op, marked in ``emptied``)."""

    def __init__(self, cond, value):
        self.cond, self.value = cond, value
        self.emptied = False

    def visit_IfThenElse(self, s):
        s = self.generic_visit(s)
        if not structural_equal(s.condition, self.cond):
            return s
        if self.value:
            return s.then_case
        if s.else_case is None:
            self.emptied = True
            return S.Evaluate(0)
        return s.else_case


class _Wrapper(Mutator):
    def __init__(self, done):
        self.done = done
        self.emptied = False

    def _wrap(self, old, new):
        info = self.done.get(id(old))
        if info is None:
            return new
        for cond, has_else in reversed(info.conditions):
            then = _Known(cond, True)
            then_case = then.visit(new)
            else_case = None
            if has_else:
                other = _Known(cond, False)
                else_case = other.visit(new)
                self.emptied |= other.emptied
            self.emptied |= then.emptied
            new = S.IfThenElse(cond, then_case, else_case)
        return new

    def visit_For(self, s):
        return self._wrap(s, self.generic_visit(s))

    def visit_AttrStmt(self, s):
        return self._wrap(s, self.generic_visit(s))


def _hoist(func: PrimFunc, block_scope: bool) -> PrimFunc:
    collector = _Collector(block_scope)
    collector.visit(func.body)
    if not any(info.conditions for info in collector.done.values()):
        return convert_ssa(func)
    wrapper = _Wrapper(collector.done)
    out = convert_ssa(func.with_body(wrapper.visit(func.body)))
    return remove_no_op(out) if wrapper.emptied else out


def _hoist_factory(variant=None):
    """TVM's HoistIfThenElse(variant): the default reads support_block_scope_hosting from
    the PassContext config tir.HoistIfThenElse; "basic" never hoists across block scopes."""
    if variant not in (None, "basic"):
        raise TepadError(f"HoistIfThenElse: variant must be None or 'basic', got {variant!r}")
    if variant == "basic":
        return lambda func: hoist_if_then_else(func)
    return lambda func: hoist_if_then_else(func, **hoist_if_then_else_config(
        current_config().get(CONFIG_KEY)))


@register_pass("HoistIfThenElse", factories={"HoistIfThenElse": _hoist_factory})
def hoist_if_then_else(func, support_block_scope_hoisting: bool = False):
    """Hoist ``if`` statements above the loops their condition does not depend on (see the
    module docstring); a PrimFunc comes back as a PrimFunc, a statement as a statement."""
    if isinstance(func, PrimFunc):
        return _hoist(func, support_block_scope_hoisting)
    if isinstance(func, S.Stmt):
        return _hoist(PrimFunc([], func), support_block_scope_hoisting).body
    raise TepadError(f"hoist_if_then_else takes a PrimFunc or a Stmt, got "
                     f"{type(func).__name__}")


__all__ = ["hoist_if_then_else", "hoist_if_then_else_config", "CONFIG_KEY"]
