"""unroll_loop: replace ``ForKind.UNROLLED`` loops of constant extent by copies of their body,
and auto-unroll small inner loops where a pragma or ``PassContext`` config asks for it.

Guarantee: after the pass no UNROLLED ``For`` with a constant extent of at most ``max_extent``
remains; each was replaced by ``extent`` copies of its body with the loop var substituted by
``min + k`` (inner loops are unrolled first), and the variables bound inside the copies are
renamed so that each is bound once (``convert_ssa``). An UNROLLED loop whose extent is not a constant
(or exceeds ``max_extent``) becomes a SERIAL loop; it is never an error.

Auto unrolling follows TVM's UnrollLoop: a SERIAL loop of constant extent ``n`` with no
non-unrolled loop inside it, at most ``auto_max_depth`` unrolled loops deep, is unrolled when
``n * steps <= auto_max_step`` (``steps``: the stores and evaluations of its body, times the
extents of the loops unrolled inside it) or ``n <= auto_max_extent``. ``auto_max_step`` and
``auto_max_extent`` come from ``PassContext(config={"tir.UnrollLoop": {...}})`` (default 0:
no auto unrolling) and, inside a loop annotated ``pragma(iv, "auto_unroll_max_step", k)``,
from the pragma; both pragma AttrStmts (``pragma_auto_unroll_max_step``,
``pragma_unroll_explicit``) are removed. A loop extent that simplifies to a constant
(``n + 2 - n``) counts as that constant. As in TVM, ``auto_max_extent == 1`` unrolls every loop
of extent 0 or 1 whatever its body holds, and a loop of extent 0 becomes a no-op.

``explicit_unroll=False`` (TVM: leave the unrolling to the code generator) marks the loops
auto unrolling picks as UNROLLED instead of copying their bodies, and leaves UNROLLED loops as
they are (extent-1 loops under ``auto_max_extent == 1`` are still replaced by their body); the
guarantee above then does not hold, and the build pipeline, which calls the pass with
``explicit_unroll=True``, unrolls them later.
"""
from __future__ import annotations

from ...errors import TepadError
from ...tir import ForKind, IntImm, Mutator, PrimFunc, seq, substitute
from ...arith import Analyzer
from ...tir.expr import add, const
from ...tir.stmt import Evaluate
from ...tir.ssa import convert_ssa
from ...tir.transform import current_config, register_pass

AUTO_UNROLL_PRAGMA = "pragma_auto_unroll_max_step"
EXPLICIT_PRAGMA = "pragma_unroll_explicit"

# TVM's tir.UnrollLoop config keys and their defaults.
CONFIG_DEFAULTS = {"auto_max_step": 0, "auto_max_depth": 8, "auto_max_extent": 0,
                   "explicit_unroll": True, "unroll_local_access": False}


def unroll_config(config) -> dict:
    """``config`` (a ``tir.UnrollLoop`` dict) checked and completed with TVM's defaults."""
    out = dict(CONFIG_DEFAULTS)
    for k, v in dict(config or {}).items():
        if k not in CONFIG_DEFAULTS:
            raise TepadError(f"tir.UnrollLoop config: unknown key {k!r}; keys: "
                             f"{', '.join(CONFIG_DEFAULTS)}")
        if isinstance(CONFIG_DEFAULTS[k], bool):
            out[k] = bool(v)
        else:
            if isinstance(v, bool) or not isinstance(v, int):
                raise TepadError(f"tir.UnrollLoop config: {k} must be an integer, got {v!r}")
            out[k] = v
    return out


def _const_int(e):
    return int(e.value) if isinstance(e, IntImm) else None


class _Unroller(Mutator):
    def __init__(self, max_extent: int, auto_max_step=0, auto_max_depth=8, auto_max_extent=0,
                 explicit_unroll=True):
        self.max_extent = max_extent
        self.explicit = explicit_unroll
        self.auto_max_step = auto_max_step
        self.auto_max_depth = auto_max_depth
        self.auto_max_extent = auto_max_extent
        # TVM's counters: steps of the statement just visited, unrolled loops nested in it,
        # non-unrolled loops nested in it
        self.step_count = 0
        self.unroll_depth = 0
        self.normal_loop_depth = 0

    def visit_AttrStmt(self, s):
        if s.attr_key == AUTO_UNROLL_PRAGMA:
            value = _const_int(s.value)
            if value is None:
                raise TepadError(f"pragma auto_unroll_max_step needs an integer constant, got "
                                 f"{s.value!r}")
            saved, self.auto_max_step = self.auto_max_step, value
            body = self.visit(s.body)
            self.auto_max_step = saved
            return body
        if s.attr_key == EXPLICIT_PRAGMA:
            return self.visit(s.body)
        return self.generic_visit(s)

    def visit_BufferStore(self, s):
        self.step_count += 1
        return s

    def visit_Evaluate(self, s):
        self.step_count += 1
        return s

    def visit_SeqStmt(self, s):
        step, depth, normal = self.step_count, self.unroll_depth, self.normal_loop_depth
        total_steps, max_depth, max_normal = 0, depth, normal
        out = []
        for x in s.seq:
            self.step_count = self.unroll_depth = self.normal_loop_depth = 0
            out.append(self.visit(x))
            total_steps += self.step_count
            max_depth = max(max_depth, self.unroll_depth)
            max_normal = max(max_normal, self.normal_loop_depth)
        self.step_count = step + total_steps
        self.unroll_depth, self.normal_loop_depth = max_depth, max_normal
        if all(a is b for a, b in zip(out, s.seq)):
            return s
        return seq(*out)

    def visit_For(self, s):
        body = self.visit(s.body)
        n = _const_int(s.extent)
        if n is None:
            n = _const_int(Analyzer().simplify(s.extent))
        auto = (s.kind == ForKind.SERIAL and n is not None and n >= 0 and
                (self.auto_max_step > 0 or self.auto_max_extent > 0) and
                self.normal_loop_depth == 0 and self.unroll_depth <= self.auto_max_depth and
                (n * self.step_count <= self.auto_max_step or n <= self.auto_max_extent) and
                n <= self.max_extent)
        trivial = n is not None and 0 <= n <= self.auto_max_extent == 1
        if s.kind != ForKind.UNROLLED and not auto and not trivial:
            self.normal_loop_depth += 1
            return s.replace(body=body)
        if n is None or not 0 <= n <= self.max_extent:
            self.normal_loop_depth += 1
            return s.replace(kind=ForKind.SERIAL if self.explicit else s.kind, body=body)
        if s.kind == ForKind.UNROLLED or auto:
            self.step_count *= n
            self.unroll_depth += 1
        else:
            self.normal_loop_depth += 1
        if not self.explicit and not trivial:
            return s.replace(kind=ForKind.UNROLLED, body=body)
        if n == 0:
            return Evaluate(0)
        copies = [substitute(body, {s.loop_var: add(s.min, const(k, s.loop_var.dtype))})
                  for k in range(n)]
        return seq(*copies)


def _unroll_factory():
    """TVM's UnrollLoop(): its options come from the PassContext config tir.UnrollLoop."""
    return lambda func: unroll_loop(func, **dict(current_config().get("tir.UnrollLoop") or {}))


@register_pass("UnrollLoop", factories={"UnrollLoop": _unroll_factory})
def unroll_loop(func: PrimFunc, max_extent: int = 1024, **config) -> PrimFunc:
    """Unroll every UNROLLED loop with a constant extent, and the loops auto unrolling picks
    (``config``: the ``tir.UnrollLoop`` keys; see the module docstring)."""
    cfg = unroll_config(config)
    body = _Unroller(max_extent, cfg["auto_max_step"], cfg["auto_max_depth"],
                     cfg["auto_max_extent"], cfg["explicit_unroll"]).visit(func.body)
    return func if body is func.body else convert_ssa(func.with_body(body))


def unroll_stmt(stmt, max_extent: int = 1024):
    """The same rewrite on a bare statement."""
    return _Unroller(max_extent).visit(stmt)
