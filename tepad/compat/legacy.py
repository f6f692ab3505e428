"""TVM's older calls whose arguments differ from today's, adapted to tepad's: the 0.6
``tvm.make`` constructors of ``For`` (an int ``for_type`` and a ``device_api``) and ``Call``
(a ``call_type``), and the ``tvm.ir_pass`` functions that map cleanly onto tepad
(``Simplify``, ``CanonicalSimplify``, ``Equal``, ``Substitute``, ``PostOrderVisit``,
``IRTransform``, ``ExprUseVar``), and 0.6's ``tvm.build_config(...)`` as a ``PassContext``."""
from __future__ import annotations

from ..arith import simplify
from ..errors import TepadError
from ..lower.pass_context import PassContext
from ..lower.to_primfunc import postproc_to_primfunc
from ..tir.expr import Call as _Call, Range
from ..tir.functor import ir_transform, post_order_visit, substitute, uses_var
from ..tir.stmt import For as _For, ForKind
from ..tir.function import PrimFunc
from ..tir.stmt import Stmt
from ..tir.structural import structural_equal
from ..tir import transform as tir_transform

# TVM 0.6's dtype names at the top level (tvm.float32 == "float32")
int8, int32, float32, handle = "int8", "int32", "float32", "handle"

# TVM 0.6's ForType codes
_FOR_TYPES = {0: ForKind.SERIAL, 1: ForKind.PARALLEL, 2: ForKind.VECTORIZED,
              3: ForKind.UNROLLED}


def make_for(loop_var, min_value, extent, for_type, device_api, body):
    """0.6's ``make.For(loop_var, min, extent, for_type, device_api, body)``: ``for_type``
    0 serial, 1 parallel, 2 vectorized, 3 unrolled (or a ``ForKind``); ``device_api`` is
    ignored (0 in every CPU program)."""
    kind = _FOR_TYPES.get(for_type, for_type) if isinstance(for_type, int) else for_type
    try:
        kind = ForKind(kind)
    except ValueError:
        raise TepadError(f"make.For: for_type {for_type!r} is not 0 (serial), 1 (parallel), "
                         "2 (vectorized) or 3 (unrolled)") from None
    return _For(loop_var, min_value, extent, kind, body)


def make_call(dtype, name, args, call_type=None, func=None, value_index=0):
    """0.6's ``make.Call(dtype, name, args, call_type, func, value_index)``: a call of the
    intrinsic or extern function ``name`` (``call_type`` / ``func`` / ``value_index`` name
    what tepad's ``tir.Call`` does not need)."""
    if func is not None:
        raise TepadError("make.Call with a func (a Halide call of a tensor) is not "
                         "supported; index the tensor instead (A[i])")
    return _Call(dtype, name, list(args))


def range_by_min_extent(min_value, extent) -> Range:
    """0.6's ``make.range_by_min_extent`` / ``Range.make_by_min_extent``."""
    return Range.from_min_extent(min_value, extent)


def Simplify(node):  # noqa: N802 - TVM name
    """0.6's ``ir_pass.Simplify(expr_or_stmt)``: tepad's simplifier (``tepad.arith``)."""
    return simplify(node)


CanonicalSimplify = Simplify


def Equal(a, b) -> bool:  # noqa: N802 - TVM name
    """0.6's ``ir_pass.Equal``: deep equality, variables compared by identity."""
    return structural_equal(a, b)


def Substitute(node, vmap):  # noqa: N802 - TVM name
    """0.6's ``ir_pass.Substitute(node, {var: expr})``."""
    return substitute(node, dict(vmap))


def PostOrderVisit(node, fvisit):  # noqa: N802 - TVM name
    """0.6's ``ir_pass.PostOrderVisit(node, f)``: ``f`` on every node, children first."""
    post_order_visit(node, fvisit)


def IRTransform(stmt, preorder, postorder, only_enable=None):  # noqa: N802 - TVM name
    """0.6's ``ir_pass.IRTransform(stmt, preorder, postorder, only_enable)``: ``preorder`` /
    ``postorder`` (either may be None) see the nodes whose class name is in ``only_enable``
    (every node when None) and return a replacement or None."""
    return ir_transform(stmt, preorder, postorder, only_enable)


def ExprUseVar(expr, var) -> bool:  # noqa: N802 - TVM name
    """0.6's ``ir_pass.ExprUseVar(expr, var)`` (a Var or a list of Vars)."""
    return uses_var(expr, var if isinstance(var, (list, tuple, set)) else [var])


# 0.6 build_config options -> tir.UnrollLoop's keys
_UNROLL_KEYS = {"auto_unroll_max_step": "auto_max_step", "auto_unroll_max_depth": "auto_max_depth",
                "auto_unroll_max_extent": "auto_max_extent", "unroll_explicit": "explicit_unroll"}
_FLAG_KEYS = {"instrument_bound_checkers": "tir.instrument_bound_checkers",
              "disable_vectorize": "tir.disable_vectorize", "disable_assert": "tir.disable_assert"}
# options of code layout or debugging that change no result tepad computes
IGNORED_BUILD_CONFIG = ("detect_global_barrier", "partition_const_loop", "offset_factor",
                        "data_alignment", "restricted_func",
                        "dump_pass_ir", "disable_select_rewriting",
                        # TVM's first releases' unroll threshold, gone by 0.4 (0.6 ignored
                        # unknown options); unrolling changes no result
                        "auto_unroll_min_depth")


def _stmt_pass(p):
    """0.6's lower passes map a Stmt to a Stmt; a pass object (``.run``) is kept as it is."""
    if hasattr(p, "run") or not callable(p):
        return p

    def run_on_body(func):
        return func.with_body(p(func.body))
    run_on_body.__name__ = getattr(p, "__name__", "stmt_pass")
    return run_on_body


def build_config(**kwargs) -> PassContext:
    """0.6's ``with tvm.build_config(...)``: a ``PassContext`` with the same effect.
    ``add_lower_pass=[(phase, f)]`` (``f`` maps the body Stmt to a Stmt, as in 0.6),
    ``instrument_bound_checkers``, ``disable_vectorize``, ``disable_assert`` and the
    ``auto_unroll_max_*`` / ``unroll_explicit`` options and ``double_buffer_split_loop``
    (``tir.InjectDoubleBuffer``) map onto PassContext's config;
    ``IGNORED_BUILD_CONFIG`` options are accepted without effect; others are a
    TepadError."""
    config, unroll = {}, {}
    for key, value in kwargs.items():
        if key == "add_lower_pass":
            config["tir.add_lower_pass"] = [(ph, _stmt_pass(p)) for ph, p in (value or ())]
        elif key in _FLAG_KEYS:
            config[_FLAG_KEYS[key]] = bool(value)
        elif key in _UNROLL_KEYS:
            unroll[_UNROLL_KEYS[key]] = value
        elif key == "double_buffer_split_loop":
            config["tir.InjectDoubleBuffer"] = {"split_loop": value}
        elif key not in IGNORED_BUILD_CONFIG:
            raise TepadError(f"build_config: unknown option {key!r}; tepad reads "
                             f"add_lower_pass, {', '.join(_FLAG_KEYS)}, "
                             f"{', '.join(_UNROLL_KEYS)}, double_buffer_split_loop and "
                             "accepts "
                             f"{', '.join(IGNORED_BUILD_CONFIG)} without effect")
    if unroll:
        config["tir.UnrollLoop"] = unroll
    return PassContext(config=config)


__all__ = ["HoistIfThenElse", "InjectVirtualThread", "RemoveNoOp", "RewriteUnsafeSelect",
           "StorageRewrite", "VectorizeLoop", "InjectCopyIntrin", "InjectDoubleBuffer",
           "LoopPartition", "UnrollLoop", "ThreadSync", "LowerIntrin", "StorageFlatten", "build_config", "IGNORED_BUILD_CONFIG", "make_for", "make_call", "range_by_min_extent", "Simplify", "CanonicalSimplify",
           "Equal", "Substitute", "PostOrderVisit", "IRTransform", "ExprUseVar"]


def _ir_pass_on_stmt(name, config_key=None, config_names=(), pass_arg_count=0):
    """TVM 0.6's ``ir_pass.<name>(stmt, *args)``: the body (a Stmt, or a PrimFunc for the
    0.6 passes that took a LoweredFunc) run through ``tvm.tir.transform.<name>``; the first
    ``pass_arg_count`` extra arguments go to the pass, the rest are the options 0.6 took as
    arguments (today the PassContext config ``config_key``: ``config_names`` in order)."""

    def run(stmt_or_func, *args):
        if isinstance(stmt_or_func, PrimFunc):
            func = stmt_or_func
        elif isinstance(stmt_or_func, Stmt):
            func = PrimFunc([], stmt_or_func)
        else:
            raise TepadError(f"ir_pass.{name}: expected a Stmt (or a PrimFunc), got "
                             f"{type(stmt_or_func).__name__}")
        pass_args, options = args[:pass_arg_count], args[pass_arg_count:]
        if len(options) > len(config_names):
            raise TepadError(f"ir_pass.{name} takes at most "
                             f"{pass_arg_count + len(config_names)} arguments after the "
                             f"statement, got {len(args)}")
        config = {config_key: dict(zip(config_names, options))} if options else {}
        p = getattr(tir_transform, name)(*pass_args)
        if config:
            with PassContext(config=config):
                out = p(func)
        else:
            out = p(func)
        return out if isinstance(stmt_or_func, PrimFunc) else out.body

    run.__name__ = name
    run.__doc__ = (f"TVM 0.6's ``ir_pass.{name}`` on a statement: ``tvm.tir.transform."
                   f"{name}`` on a PrimFunc around it, the body returned.")
    return run


HoistIfThenElse = _ir_pass_on_stmt("HoistIfThenElse")
InjectVirtualThread = _ir_pass_on_stmt("InjectVirtualThread")
RemoveNoOp = _ir_pass_on_stmt("RemoveNoOp")
RewriteUnsafeSelect = _ir_pass_on_stmt("RewriteUnsafeSelect")
StorageRewrite = _ir_pass_on_stmt("StorageRewrite")
VectorizeLoop = _ir_pass_on_stmt("VectorizeLoop")
InjectCopyIntrin = _ir_pass_on_stmt("InjectCopyIntrin", pass_arg_count=2)
InjectDoubleBuffer = _ir_pass_on_stmt("InjectDoubleBuffer", "tir.InjectDoubleBuffer",
                                      ("split_loop",))
LoopPartition = _ir_pass_on_stmt("LoopPartition", "tir.LoopPartition",
                                 ("partition_const_loop",))
UnrollLoop = _ir_pass_on_stmt("UnrollLoop", "tir.UnrollLoop",
                        ("auto_max_step", "auto_max_depth", "auto_max_extent",
                         "explicit_unroll"))
ThreadSync = _ir_pass_on_stmt("ThreadSync", pass_arg_count=1)


def StorageFlatten(stmt, binds, cache_line_size=64, create_bound_attributes=False):  # noqa: N802
    """0.6's ``ir_pass.StorageFlatten(stmt, binds, cache_line_size)``: the statement of
    ``schedule.ScheduleOps`` (or an ir_builder one) with its tensors read and written through
    the Buffers of ``binds`` (``{tensor: Buffer}``, the arguments) and every realize made a
    flat allocation: ``SchedulePostProcToPrimFunc`` then ``tvm.tir.transform.StorageFlatten``
    on a PrimFunc around it, the body returned."""
    if not isinstance(stmt, Stmt):
        raise TepadError(f"ir_pass.StorageFlatten: expected a Stmt, got {type(stmt).__name__}")
    if not isinstance(binds, dict):
        raise TepadError("ir_pass.StorageFlatten: binds must be a dict {tensor: Buffer}, got "
                         f"{type(binds).__name__}")
    func = postproc_to_primfunc(list(binds.values()), stmt, binds)
    func = tir_transform.StorageFlatten(cache_line_size, create_bound_attributes)(func)
    return func.body


def LowerIntrin(stmt_or_func, target=None):  # noqa: N802 - TVM name
    """0.6's ``ir_pass.LowerIntrin(func, target)``: ``tvm.tir.transform.LowerIntrin`` (the
    target string is read by tepad's pass from the function or the current target)."""
    return _ir_pass_on_stmt("LowerIntrin")(stmt_or_func)
