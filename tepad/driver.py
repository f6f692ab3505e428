"""``tepad.build``: lower (when given a schedule), finish the TIR, generate code, wrap a Module.

Rebuilding what was built before is instant: a schedule whose state (stages, relations,
attachments, annotations, layouts) and arguments match an earlier build, or the same lowered
PrimFunc object, returns the Module built then (Modules hold no per-call state). Below that,
``tepad.codegen`` caches compiled kernels by their printed IR.
"""
from __future__ import annotations

import threading
from collections import OrderedDict

from .errors import TepadError
from .schedule import Schedule
from .tir.expr import Call
from .tir.function import PrimFunc
from .tir.functor import post_order_visit
from .tir.stmt import BufferStore


def build(s_or_func, args=None, target="llvm", name="main", bounds_check=False,
          checked=False):
    """A callable ``Module`` for a schedule (with ``args``) or an already lowered PrimFunc.

    ``bounds_check=True`` guards every buffer access in the generated code: an index outside
    its buffer raises ``TepadError`` naming the buffer and index instead of touching memory.
    ``checked=True`` turns the ``tir.assume`` facts about input padding into runtime checks
    that raise ``TepadError`` when the caller's padding does not hold the promised value.
    """
    if not isinstance(target, str) or target.split()[0] not in ("llvm", "c", "cpu"):
        raise TepadError(f"unknown target {target!r}; tepad builds for 'llvm' (the host CPU)")
    key = _build_key(s_or_func, args, name, bounds_check, checked)
    hit = _cache_get(key)
    if hit is not None:
        return hit
    mod = _build(s_or_func, args, name, bounds_check, checked)
    _cache_put(key, mod, (s_or_func, args))
    return mod


def _build(s_or_func, args, name, bounds_check, checked):
    if isinstance(s_or_func, Schedule):
        if args is None:
            raise TypeError("build(schedule, args): args (the tensors, in order) are required")
        from .lower import lower
        func = lower(s_or_func, args, name=name)
    elif isinstance(s_or_func, PrimFunc):
        func = s_or_func
        if name != "main" and func.name != name:
            func = func.with_attr("global_symbol", name)
    else:
        raise TypeError(f"build expects a Schedule or a PrimFunc, got {type(s_or_func).__name__}")
    func = prepare_for_codegen(func, checked=checked)
    arg_info = arg_info_of(func)
    if bounds_check:
        from .lower.passes.instrument_bound_checks import instrument_bound_checks
        func = instrument_bound_checks(func)
    from .codegen import build_module
    return build_module(func, arg_info)


# --- rebuild cache ------------------------------------------------------------------------------

_CACHE_SIZE = 128
_cache: OrderedDict = OrderedDict()
_lock = threading.Lock()


def _cache_enabled():
    """Same switch as the compile cache: TEPAD_COMPILE_CACHE=0 or codegen.cache_disabled()."""
    from .codegen import _cache_enabled as compile_cache_enabled
    return compile_cache_enabled()


def _schedule_state(s) -> tuple:
    """Everything about a schedule that lowering reads, by identity (ops are immutable; the
    cache entry keeps the objects alive so ids cannot be reused)."""
    out = [tuple(id(op) for op in s.outputs)]
    for st in s.stages:
        rels = []
        for r in st.relations:
            rels.append((type(r).__name__,) + tuple(
                id(x) if not isinstance(x, (int, str, type(None))) and not hasattr(x, "dtype")
                else (repr(x) if hasattr(x, "dtype") else x)
                for x in r.__dict__.values() if not isinstance(x, list)) +
                tuple(tuple(id(v) for v in x) for x in r.__dict__.values()
                      if isinstance(x, list)))
        attrs = tuple(sorted((id(iv), a.iter_type, id(a.bind_thread))
                             for iv, a in st.iter_var_attrs.items()))
        out.append((id(st.op), id(st.origin_op), tuple(id(iv) for iv in st.leaf_iter_vars),
                    tuple(rels), attrs, int(st.attach_type), id(st.attach_ivar),
                    id(st.attach_stage.op) if st.attach_stage is not None else None,
                    st.scope, st.is_output, st.is_rolling,
                    tuple(id(m) for m in st.layout_transforms), tuple(st.axis_separators),
                    tuple(id(p) if callable(p) else repr(p) for p in st.pad_values)))
    return tuple(out)


def _build_key(s_or_func, args, name, bounds_check, checked):
    if not _cache_enabled():
        return None
    from .codegen.llvm_ir import default_num_threads
    common = (name, bool(bounds_check), bool(checked), default_num_threads())
    if isinstance(s_or_func, PrimFunc):
        return ("func", id(s_or_func)) + common
    if isinstance(s_or_func, Schedule) and isinstance(args, (list, tuple)):
        try:
            return ("sched", id(s_or_func), _schedule_state(s_or_func),
                    tuple(id(a) for a in args)) + common
        except (AttributeError, TypeError):
            return None
    return None


def _cache_get(key):
    if key is None:
        return None
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit[0]
    return None


def _cache_put(key, mod, keepalive):
    if key is None:
        return
    with _lock:
        _cache[key] = (mod, keepalive)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)


def _has_builtin(func, names):
    found = []
    post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, Call) and
                     n.op in names else None)
    return bool(found)


def prepare_for_codegen(func: PrimFunc, checked=False) -> PrimFunc:
    """The build phase of lowering: remove ``tir.assume`` (or, with ``checked``, turn input
    assumes into runtime checks) and stores of ``tir.undef`` (API.md: lower keeps them), then
    BUILD_PASSES (storage_flatten, simplify, hoist_expression, unroll, vectorize) and one index
    per access."""
    from .lower.pipeline import BUILD_PASSES, run_passes
    func = strip_builtins(func, checked)
    func = run_passes(func, BUILD_PASSES)
    return flatten_for_cpu(func)


def strip_builtins(func: PrimFunc, checked=False) -> PrimFunc:
    """Drop ``tir.assume`` (or check it at run time) and stores of ``tir.undef``."""
    if _has_builtin(func, ("tir.assume",)):
        if checked:
            from .lower.passes.check_assumes import check_assumes
            func = check_assumes(func)
        from .lower.passes.remove_assume import remove_assume
        func = remove_assume(func)
    if _has_builtin(func, ("tir.undef",)):
        from .lower.passes.remove_store_undef import remove_store_undef
        func = remove_store_undef(func)
    return func


def flatten_for_cpu(func: PrimFunc) -> PrimFunc:
    """The CPU has flat memory: combine axis-separator groups into one index per access."""
    from .lower.passes.flatten_physical_axes import flatten_physical_axes
    from .lower.passes.simplify import simplify
    flat = flatten_physical_axes(func)
    return func if flat is func else simplify(flat)


def arg_info_of(func: PrimFunc) -> list:
    """One ArgInfo per parameter: logical/physical shapes, pad value, written or not."""
    from .runtime.args import ArgInfo
    written = set()
    post_order_visit(func.body, lambda n: written.add(n.buffer.data)
                     if isinstance(n, BufferStore) else None)
    layouts = func.attrs.get("arg_layouts", {})
    out = []
    for k, p in enumerate(func.params):
        buf = func.buffer_map.get(p)
        if buf is None:
            raise TepadError(f"parameter {p.name!r} is not bound to a buffer in buffer_map "
                             f"(parameter {k} of {func.name}); tepad kernels take buffers only")
        lay = layouts.get(p, {})
        out.append(ArgInfo(buf.name, buf.dtype, tuple(lay.get("logical_shape", buf.shape)),
                           tuple(buf.shape), tuple(buf.axis_separators),
                           lay.get("pad_value"), p in written))
    return out
