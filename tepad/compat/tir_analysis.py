"""TVM's ``tvm.tir.analysis`` for TE-lowered functions (installed as ``tepad.tir.analysis``
by ``tepad.compat.tir_face``): the verifiers answer ``True`` / ``False`` as TVM's do, where
tepad's own checks (``tepad.tir.verify``, ``verify_gpu_code``) raise with the reason.

The TensorIR block analyses (``get_block_access_region``, ``detect_buffer_access_lca``, ...)
and relay's memory-constraint helpers are not here (docs/coming_from_tvm.md)."""
from __future__ import annotations

from ..errors import InternalError, TepadError
from ..ir import IRModule
from ..lower.passes.verify_gpu_code import _check_kernel, _HostWrites, gpu_limits, kernels
from ..tir import dtype as dt
from ..tir.expr import PrimExpr, Var, IntImm, Call
from ..tir.function import PrimFunc
from ..tir.free_vars import FreeVars
from ..tir.functor import Visitor, post_order_visit
from ..tir.stmt import Allocate, Stmt
from ..tir.structural import structural_equal
from ..tir.verify import verify as _verify


def _funcs(func_or_mod):
    if isinstance(func_or_mod, PrimFunc):
        return {"main": func_or_mod}
    if isinstance(func_or_mod, IRModule):
        return {name: f for name, f in func_or_mod.functions.items()
                if isinstance(f, PrimFunc)}
    raise TepadError(f"tir.analysis: expected a PrimFunc or an IRModule, got "
                     f"{type(func_or_mod).__name__}")


def expr_deep_equal(lhs: PrimExpr, rhs: PrimExpr) -> bool:
    """Whether two expressions are the same tree (variables compared by identity)."""
    return structural_equal(lhs, rhs)


class _Definitions(Visitor):
    def __init__(self, params):
        self.seen = set(params)
        self.ok = True

    def _define(self, v):
        if v in self.seen:
            self.ok = False
        self.seen.add(v)

    def visit_For(self, s):
        self._define(s.loop_var)
        self.generic_visit(s)

    def visit_LetStmt(self, s):
        self._define(s.var)
        self.generic_visit(s)

    def visit_Let(self, e):
        self._define(e.var)
        self.generic_visit(e)

    def visit_Allocate(self, s):
        self._define(s.buffer_var)
        self.generic_visit(s)


def verify_ssa(func: PrimFunc) -> bool:
    """Whether every variable of ``func`` is defined once (loop variables, lets and
    allocations, and none of them a parameter)."""
    v = _Definitions(func.params)
    v.visit(func.body)
    return v.ok


def verify_memory(func: PrimFunc) -> bool:
    """Whether host code of a function with GPU launches touches no buffer directly (every
    store sits inside a launch); a CPU function always passes."""
    if not kernels(func.body):
        return True
    host = _HostWrites()
    host.visit(func.body)
    return not host.found


def verify_gpu_code(func: PrimFunc, constraints: dict | None = None) -> bool:
    """Whether each kernel of ``func`` (a PrimFunc, or every PrimFunc of an IRModule such as
    ``lower`` returns) keeps within the limits: ``constraints`` takes TVM's keys
    ``max_threads_per_block`` and ``max_shared_memory_per_block`` (others, such as
    ``max_local_memory_per_block`` or ``max_vthread``, are accepted and not checked); the
    rest come from the current GPU target (cuda's defaults without one)."""
    limits = gpu_limits()
    for key in ("max_threads_per_block", "max_shared_memory_per_block"):
        if constraints and key in constraints:
            limits[key] = int(constraints[key])
    try:
        for f in _funcs(func).values():
            for k in kernels(f.body):
                _check_kernel(f, k, limits)
    except TepadError:
        return False
    return True


def verify_well_formed(obj, assert_mode: bool = True) -> bool:
    """Whether a PrimFunc (or every PrimFunc of an IRModule) is well formed; with
    ``assert_mode`` a problem raises ``InternalError`` listing it instead of answering
    False."""
    for name, f in _funcs(obj).items():
        problems = _verify(f)
        if problems:
            if assert_mode:
                raise InternalError(f"ill-formed IR in {name}:\n  " + "\n  ".join(problems))
            return False
    return True


def undefined_vars(node, defs=None) -> list:
    """The variables ``node`` (a Stmt or PrimExpr) uses without defining, in first-use order;
    ``defs`` count as defined."""
    v = FreeVars()
    v.defined.update(defs or ())
    v.visit(node)
    return [x for x in v.order if isinstance(x, Var)]


def _allocations(body):
    out = []
    post_order_visit(body, lambda n: out.append(n) if isinstance(n, Allocate) else None)
    return out


def _bytes(a: Allocate):
    size = dt.parse(a.dtype).bytes * dt.lanes(a.dtype)
    for e in a.extents:
        if not isinstance(e, IntImm):
            raise TepadError(f"tir.analysis: allocation {a.buffer_var.name} has the "
                             f"non-constant extent {e}")
        size *= e.value
    return size


def calculate_allocated_bytes(func_or_mod) -> dict:
    """``{function name: {storage scope: bytes}}`` of the allocations inside each function
    (a PrimFunc alone is named ``"main"``)."""
    out = {}
    for name, f in _funcs(func_or_mod).items():
        per = {}
        for a in _allocations(f.body):
            scope = a.annotations.get("scope", "global") if a.annotations else "global"
            per[scope] = per.get(scope, 0) + _bytes(a)
        out[name] = per
    return out


def calculate_workspace_bytes(func: PrimFunc, workspace_byte_alignment: int) -> int:
    """The bytes of the function's global-scope allocations, each rounded up to
    ``workspace_byte_alignment`` (all live at once: an upper bound of TVM's figure)."""
    total = 0
    for a in _allocations(func.body):
        scope = a.annotations.get("scope", "global") if a.annotations else "global"
        if scope == "global":
            n = _bytes(a)
            total += -(-n // workspace_byte_alignment) * workspace_byte_alignment
    return total


class _Flops(Visitor):
    """Floating-point operations of a loop nest: each arithmetic node on a float dtype (and
    each float math call) counts one, times the constant extents of the loops around it."""

    def __init__(self):
        self.scale = [1]
        self.total = 0.0

    def visit_For(self, s):
        ext = s.extent.value if isinstance(s.extent, IntImm) else 1
        self.scale.append(self.scale[-1] * ext)
        self.visit(s.body)
        self.scale.pop()

    def generic_visit(self, node):
        name = type(node).__name__
        if name in ("Add", "Sub", "Mul", "Div", "Mod", "FloorDiv", "FloorMod", "Min", "Max") \
                and dt.is_float(node.dtype):
            self.total += self.scale[-1] * dt.lanes(node.dtype)
        elif isinstance(node, Call) and dt.is_float(node.dtype) and node.op.startswith("tir.") \
                and node.op not in ("tir.if_then_else", "tir.likely"):
            self.total += self.scale[-1] * dt.lanes(node.dtype)
        super().generic_visit(node)


def estimate_tir_flops(stmt_or_mod) -> float:
    """The floating-point operations a statement (or every PrimFunc of a module) performs:
    float arithmetic and math calls, times the constant extents of the enclosing loops."""
    v = _Flops()
    if isinstance(stmt_or_mod, (Stmt, PrimExpr)):
        v.visit(stmt_or_mod)
    else:
        for f in _funcs(stmt_or_mod).values():
            v.visit(f.body)
    return float(v.total)


__all__ = ["expr_deep_equal", "verify_ssa", "verify_memory", "verify_gpu_code",
           "verify_well_formed", "undefined_vars", "calculate_allocated_bytes",
           "calculate_workspace_bytes", "estimate_tir_flops"]
