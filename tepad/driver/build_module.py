"""``tepad.build``: pick the backend of the target (``tepad.backend.backend_for``), which
lowers (when given a schedule), runs the build phase of the pipeline and its own passes,
generates code and wraps a Module.

Rebuilding what was built before is instant: a schedule whose fingerprint
(``Schedule.fingerprint()``: every stage's state) and arguments match an earlier build, or the
same lowered PrimFunc object, returns the Module built then (Modules hold no per-call state).
Below that, ``tepad.codegen`` caches compiled kernels by their printed IR.
"""
from __future__ import annotations

from ..backend import backend_for
from ..errors import TepadError, warn_deprecated
from ..lower.pipeline import lower, lower_primfunc, schedule_to_module
from ..runtime.args import arg_info_of
from ..runtime.multi import ModuleGroup
from ..schedule import Schedule
from ..target import as_target, is_cpu_kind
from ..tensor import Tensor
from ..tir.buffer import Buffer, decl_buffer
from ..tir.expr import Var
from ..tir.function import PrimFunc
from ..tir.module import IRModule


def build(s_or_func, args=None, target=None, target_host=None, runtime=None, name="main",
          binds=None, *, bounds_check=False, checked=False, exact_bounds=False,
          index_check=None, emulate=None, race_check=None):
    """A callable ``Module`` for a schedule (with ``args``: tensors, and scalar ``te.var``s
    passed as numbers), or an already lowered PrimFunc or one-function IRModule (what
    ``tepad.lower`` returns). Several functions (an IRModule holding more than one, a list of
    lowered modules / PrimFuncs as in TVM's ``build([f1, f2])``, or ``{"llvm": mod}``) give a
    ``ModuleGroup``: ``mod["f1"]`` is each function's Module.

    ``target``: a ``tepad.target.Target`` or its string (``"llvm -mcpu=... -mattr=..."``);
    default: the ``with Target(...)`` target, else the host CPU. Options of the current
    ``tepad.transform.PassContext`` apply (disabled passes, ``tir.instrument_bound_checkers``).

    ``bounds_check=True`` guards every buffer access in the generated code: an index outside
    its buffer raises ``TepadError`` naming the buffer and index instead of touching memory.
    ``index_check`` (default: the PassContext's ``tepad.index_check``, True): loads and
    stores whose index is read from memory (gathers ``A[I[i]]``, scatters, indices a
    ``te.extern`` produced) are checked before they happen; an index outside its tensor
    raises ``TepadError`` naming the tensor, the index expression, its value and the valid
    range. Accesses whose index does not read memory are proved in bounds at lower time and
    never checked. ``index_check=False`` removes these checks (a bad index is then undefined
    behaviour, as in C).
    ``checked=True`` turns the ``tir.assume`` facts about input padding into runtime checks
    that raise ``TepadError`` when the caller's padding does not hold the promised value.
    Both select passes of ``tepad.lower.pipeline.PIPELINE``.
    Lowering and code generation run on a deep stack (``tepad.support.deep_stack``).

    ``target="cuda"`` (or ``"nvptx"``, ``"cuda -arch=sm_90"``) builds for a CUDA GPU
    (``tepad.backend.cuda``: a ``CudaModule`` launching PTX kernels), or, with
    ``emulate=True``, for the CPU through the GPU emulator (``tepad.backend.emulated``: an
    ``EmulatedModule``, docs/gpu.md); ``emulate=None`` follows ``TEPAD_CUDA=emulate``.
    ``race_check`` (default ``TEPAD_CUDA_RACECHECK``): the emulated kernel also runs its
    threads and blocks in reverse order and a difference is a TepadError (a data race).
    ``target_host`` may only name the CPU (``"llvm"``), where the host part runs.

    The positional order is TVM's, ``build(s, args, target, target_host, runtime, name,
    binds)``; TVM 0.6's ``build(s, args, target, target_host, name)`` (a string in
    ``runtime``'s place) is read as a name. ``runtime`` is otherwise None (tepad has one
    runtime). ``binds`` (``{tensor: tir.decl_buffer(...)}``) as in ``tepad.lower``.
    """
    if isinstance(runtime, str):       # TVM 0.6 order: build(s, args, target, host, name)
        if name != "main":
            raise TepadError(f"build: name given twice ({runtime!r} in runtime's place, and "
                             f"name={name!r})")
        runtime, name = None, runtime
    if runtime is not None:
        raise TepadError(f"build: runtime {runtime!r} is not supported; tepad has one runtime "
                         "(leave runtime=None)")
    if binds:
        if not isinstance(s_or_func, Schedule):
            raise TepadError("build: binds applies to a schedule, not to an already lowered "
                             "function")
        s_or_func = lower_primfunc(s_or_func, args, name, exact_bounds, binds=binds)
        args = None
    funcs = _functions_of(s_or_func)
    if funcs is not None:
        if len(funcs) > 1:
            return ModuleGroup({k: build(f, None, target, name=k, bounds_check=bounds_check,
                                         checked=checked, exact_bounds=exact_bounds,
                                         index_check=index_check, emulate=emulate,
                                         race_check=race_check)
                                for k, f in funcs.items()})
        (key, s_or_func), = funcs.items()
        if name == "main":
            name = key
    tgt = as_target(target)
    if target_host is not None and not is_cpu_kind(as_target(target_host)):
        raise TepadError(f"build: target_host {str(target_host)!r} is not the CPU; the host "
                         "part runs on 'llvm'")
    return backend_for(tgt, emulate, race_check).build(
        s_or_func, args, name, tgt, checked=checked, bounds_check=bounds_check,
        exact_bounds=exact_bounds, index_check=index_check)


def _functions_of(x) -> dict | None:
    """``{name: PrimFunc}`` for what ``build`` takes beside a schedule or one PrimFunc: an
    IRModule, a list of IRModules / PrimFuncs (TVM's ``build([f1, f2])``), or TVM's
    ``{target: IRModule}``; None for a schedule or a PrimFunc."""
    if isinstance(x, dict):
        for k in x:
            if not is_cpu_kind(as_target(k)):
                raise TepadError(f"build: target {k!r} is not the CPU; tepad builds for "
                                 "'llvm' only")
        x = list(x.values())
    if isinstance(x, IRModule):
        x = [x]
    if not isinstance(x, (list, tuple)):
        return None
    out = {}
    for item in x:
        pairs = item.items() if isinstance(item, IRModule) else \
            [(item.name, item)] if isinstance(item, PrimFunc) else None
        if pairs is None:
            raise TepadError(f"build: expected IRModules or PrimFuncs in the list, got "
                             f"{type(item).__name__}")
        for k, f in pairs:
            k = f.attrs.get("global_symbol", k)
            if k in out:
                raise TepadError(f"build: two functions are named {k!r}")
            out[k] = f
    if not out:
        raise TepadError("build: no functions to build")
    return out


def get_binds(args, compact=False, binds=None):
    """TVM's ``get_binds``: ``(binds, arg_list)`` for a build's ``args``. Every tensor among
    ``args`` gets the buffer ``binds`` gives it, else a new compact
    ``tir.decl_buffer(shape, dtype, name)``; ``arg_list`` is ``args`` with tensors replaced by
    their buffers (buffers and variables stay). ``compact`` is accepted for TVM's signature:
    tepad's argument buffers are always compact."""
    if binds is not None and not isinstance(binds, dict):
        raise TepadError(f"get_binds: binds must be a dict {{tensor: Buffer}}, got "
                         f"{type(binds).__name__}")
    out = dict(binds or {})
    arg_list = []
    for k, a in enumerate(args):
        if isinstance(a, Tensor):
            if a not in out:
                out[a] = decl_buffer(a.shape, a.dtype, name=a.op.name)
            arg_list.append(out[a])
        elif isinstance(a, (Buffer, Var)):
            arg_list.append(a)
        else:
            raise TepadError(f"get_binds: argument {k} is a {type(a).__name__}; arguments are "
                             "te tensors, tir buffers or tir variables")
    return out, arg_list


def form_irmodule(sch, args, name="main", binds=None) -> IRModule:
    """TVM 0.7's name of ``schedule_to_module`` (warns once)."""
    warn_deprecated("tvm.driver.build_module.form_irmodule", "tvm.driver.schedule_to_module")
    return schedule_to_module(sch, args, name, binds)


__all__ = ["build", "lower", "schedule_to_module", "form_irmodule", "arg_info_of", "get_binds"]
