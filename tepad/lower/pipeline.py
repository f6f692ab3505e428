"""The lowering story in one place: schedule -> PrimFunc ready for codegen, step by step.

    entry (schedule_to_primfunc)
      normalize          inline compute_inline stages, rebase loops to 0 (on a copy)
      check_reads        reads outside a tensor's shape are refused (ISL)
      infer_bound        a Range for every IterVar (interval IntSets, or ISL when exact)
      schedule_ops       loop nests + realize regions + attached stages (TE-level IR)
      to_primfunc        tensors -> buffers; arguments bound to parameters
    PIPELINE             every TIR pass after that, in order, as data (below)

``PIPELINE`` is the one list of passes. Each entry names its phase: ``lower`` passes give
what ``tepad.lower`` returns (physical N-d buffers, ``tir.assume`` / ``tir.undef`` kept, so
RFC 0077's opt-in passes can be applied to it); ``build`` passes run inside ``tepad.build``
right before codegen. An entry's ``when`` reads the ``Options`` (``checked``,
``bounds_check``, ``target``), so options select passes from this list instead of running
side code. ``tepad.lower``, ``tepad.build`` and ``tepad lower FILE --pass all`` all run
``run_pipeline`` over this list.

Set ``TEPAD_PRINT_PASSES=1`` to print the IR after every pass (``(unchanged)`` for a pass
that changed nothing) and ``TEPAD_VERIFY_IR=1`` to check the IR after every pass with
``tepad.tir.verify`` (the test suite does).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from .. import config
from ..bound import infer_bound
from ..bound.read_check import check_reads
from ..errors import InternalError, TepadError
from ..schedule import Schedule
from ..target import as_target, has_flat_memory, is_cpu_kind, is_gpu_kind
from ..tensor.tensor import PlaceholderOp, Tensor
from ..tir.buffer import Buffer
from ..tir.expr import IntImm, Var
from ..tir.structural import structural_equal
from ..tir.function import PrimFunc
from ..tir.launch import SplitFunc
from ..tir.module import IRModule
from ..tir.ssa import convert_ssa
from ..tir.verify import FREE_VARS_ATTR, undefined_vars, verify_well_formed
from .instrument import PassInfo, after, as_module, before, should_run
from .pass_context import TVM_PASS_NAMES, PassContext, pass_name
from .passes.apply_buffer_transforms import PadPerMap, apply_buffer_transforms
from .passes.check_assumes import check_assumes
from .passes.convert_blocks_to_opaque import convert_blocks_to_opaque
from .passes.lower_init_block import lower_init_block
from .passes.lower_opaque_block import lower_opaque_block
from .passes.default_storage_scope import default_storage_scope
from .passes.flatten_physical_axes import flatten_physical_axes
from .passes.hoist_expression import hoist_expression
from .passes.inject_virtual_thread import inject_virtual_thread
from .passes.inject_double_buffer import CONFIG_KEY as DOUBLE_BUFFER_KEY
from .passes.inject_double_buffer import double_buffer_config, inject_double_buffer
from .passes.inject_prefetch import inject_prefetch
from .passes.inject_rolling_buffer import inject_rolling_buffer
from .passes.instrument_bound_checks import instrument_bound_checks, instrument_index_checks
from .passes.loop_partition import CONFIG_KEY as LOOP_PARTITION_KEY
from .passes.loop_partition import loop_partition, loop_partition_config
from .passes.lower_thread_allreduce import lower_thread_allreduce
from .passes.remove_assume import remove_assume
from .passes.remove_skipped_regions import remove_skipped_regions
from .passes.remove_store_undef import remove_store_undef
from .passes.apply_intrin_lowering import apply_intrin_lowering
from .passes.check_parallel_races import check_parallel_races
from .scan_ops import scan_state_outputs
from .passes.simplify import simplify
from .passes.storage_flatten import storage_flatten
from .passes.sink_launch_allocations import sink_launch_allocations
from .passes.thread_sync import thread_sync
from .passes.unroll_loop import unroll_config, unroll_loop
from .passes.vectorize_loop import vectorize_loop
from .passes.verify_gpu_code import verify_gpu_code
from ..support.deep_stack import deep_stack
from .schedule_ops import schedule_ops
from .to_primfunc import to_primfunc

# PrimFunc attribute: names of schedule outputs lowered without an argument (scratch memory)
SCRATCH_OUTPUTS = "tepad.outputs_not_in_args"
SECONDARY_OUTPUT = "tepad.secondary_output"  # op attr: may be left out of build's args

LOWER = "lower"
BUILD = "build"
PHASES = (LOWER, BUILD)



def _gpu(o) -> bool:
    return is_gpu_kind(o.target)


@dataclass(frozen=True)
class Options:
    """What selects passes in PIPELINE. ``checked``: input padding promises (``tir.assume``)
    become runtime checks; ``bounds_check``: every buffer access is guarded; ``target``: the
    Target the result is for (or its kind name: ``"cuda"`` means a cuda Target with TVM's
    device limits, which verify_gpu_code checks); ``disabled``: names of optional passes
    not to run (a ``PassContext``'s ``disabled_pass``); ``flatten``: the lower phase ends with
    storage_flatten, as TVM's lower does (False keeps the N-d function RFC 0077's opt-in
    passes work on; build flattens it then); ``index_check``: accesses whose index reads
    memory (gathers, scatters) are guarded (on by default; implied by ``bounds_check``)."""
    checked: bool = False
    bounds_check: bool = False
    index_check: bool = True
    target: object = "llvm"     # a Target, or a kind name
    disabled: frozenset = frozenset()
    user_passes: tuple = ()
    flatten: bool = True
    unroll: tuple = ()      # the tir.UnrollLoop config as sorted (key, value) pairs
    # the tir.LoopPartition config as sorted (key, value) pairs; None: loop_partition does
    # not run (no such config and no required_pass naming it)
    loop_partition: tuple | None = None
    # the tir.InjectDoubleBuffer config as sorted (key, value) pairs
    double_buffer: tuple = (("split_loop", 1),)

    @staticmethod
    def from_context(ctx: PassContext | None = None, checked=False, bounds_check=False,
                     target="llvm", flatten=True, index_check=None) -> "Options":
        """The options of ``ctx`` (default: the current PassContext) merged with the
        arguments; a disabled pass that does not exist or that codegen needs is a
        TepadError. ``index_check``: None takes the context's ``tepad.index_check``
        (default True); a bool given here wins."""
        ctx = ctx if ctx is not None else PassContext.current()
        disabled = ctx.disabled
        names = {p.name: p for p in PIPELINE if p.user_phase is None}
        for n in sorted(disabled):
            if n not in names:
                raise TepadError(f"PassContext(disabled_pass=...): no pass {n!r} in the "
                                 f"pipeline; passes: {', '.join(dict.fromkeys(names))}")
            if not names[n].optional:
                optional = sorted({p.name for p in PIPELINE if p.optional})
                raise TepadError(f"pass {n!r} cannot be disabled: the code generator needs "
                                 f"its result; optional passes: {', '.join(optional)}")
        if index_check is None:
            index_check = ctx.index_check
        elif not isinstance(index_check, bool):
            raise TepadError(f"build(index_check=...) takes True or False, got {index_check!r}")
        return Options(checked=bool(checked), bounds_check=bool(bounds_check) or
                       ctx.bounds_check, index_check=index_check, target=target, disabled=disabled,
                       user_passes=ctx.user_passes, flatten=bool(flatten),
                       unroll=tuple(sorted(unroll_config(ctx.config.get("tir.UnrollLoop"))
                                           .items())),
                       loop_partition=_loop_partition_options(ctx),
                       double_buffer=tuple(sorted(double_buffer_config(
                           ctx.config.get(DOUBLE_BUFFER_KEY)).items())))


# tepad's pass name -> TVM's (the first TVM name registered for it)
_TVM_NAME_OF: dict = {}
for _tvm, _ours in TVM_PASS_NAMES.items():
    _TVM_NAME_OF.setdefault(_ours, _tvm)


def _loop_partition_options(ctx: PassContext):
    """The ``tir.LoopPartition`` options of ``ctx`` as sorted pairs, or None when neither its
    config nor its ``required_pass`` asks for loop partitioning."""
    config = ctx.config.get(LOOP_PARTITION_KEY)
    required = any(pass_name(n) == "loop_partition" for n in ctx.required_pass)
    if config is None and not required:
        return None
    return tuple(sorted(loop_partition_config(config).items()))


def _loop_partition_step(func: PrimFunc, opts: Options | None = None) -> PrimFunc:
    """loop_partition with the options of ``opts`` (default: the current PassContext's);
    ``func`` unchanged when neither asks for it."""
    options = opts.loop_partition if opts is not None else \
        _loop_partition_options(PassContext.current())
    return func if options is None else loop_partition(func, **dict(options))


def _double_buffer_step(func: PrimFunc, opts: Options | None = None) -> PrimFunc:
    """inject_double_buffer with the split_loop of ``opts`` (default: the current
    PassContext's tir.InjectDoubleBuffer config)."""
    opts = opts if opts is not None else Options.from_context()
    return inject_double_buffer(func, **dict(opts.double_buffer))


def _always(opts: Options) -> bool:
    return True


@dataclass(frozen=True)
class Pass:
    """One step of PIPELINE: ``fn(PrimFunc) -> PrimFunc`` run in ``phase`` when ``when(opts)``.

    ``skip_if_unchanged``: skip this step when the step before it returned its input
    unchanged (a simplify after a pass that did nothing has nothing to fold). ``optional``:
    codegen is correct without it, so a PassContext may disable it (vectorized and unrolled
    loops then run as serial loops). ``label``: what the pass log, ``stop_before`` and
    ``tepad lower --pass`` call the step, for a pass that runs more than once (default its
    name). ``user_phase``: see ``user_phase_point``."""
    fn: Callable[[PrimFunc], PrimFunc]
    phase: str
    why: str
    when: Callable[[Options], bool] = _always
    skip_if_unchanged: bool = False
    optional: bool = False
    name: str = field(default="")
    with_options: bool = False      # fn(func, opts) instead of fn(func)
    # the step's label when its pass runs more than once in the pipeline (``simplify.vectorized``)
    label: str = ""
    # a TVM user-pass phase point (``tir.add_lower_pass``): no pass of its own; the user
    # passes of phase ``user_phase`` run here
    user_phase: int | None = None

    def __post_init__(self):
        if self.phase not in PHASES:
            raise ValueError(f"pass {self.fn.__name__}: phase must be one of {PHASES}")
        if not self.name:
            object.__setattr__(self, "name", self.fn.__name__)
        if not self.label:
            object.__setattr__(self, "label", self.name)


def _no_pass(func):
    return func


def user_phase_point(k: int, phase: str, why: str) -> Pass:
    """Where TVM's user passes of phase ``k`` (``tir.add_lower_pass``, a PassContext's
    ``config["tir.add_lower_pass"]``) run: a PIPELINE entry with no pass of its own."""
    return Pass(_no_pass, phase, why, name=f"user_phase_{k}", user_phase=k)


PIPELINE: tuple = (
    user_phase_point(0, LOWER, "TVM's phase 0: user passes before the lower phase"),
    Pass(lower_init_block, LOWER, "te.create_prim_func's blocks: a reduction's init -> "
         "guarded by its first reduction point (no-op without blocks)"),
    Pass(convert_blocks_to_opaque, LOWER, "block iter vars -> the loop values bound to them"),
    Pass(lower_opaque_block, LOWER, "blocks -> their bodies; allocated buffers -> realize "
         "regions storage_flatten allocates"),
    Pass(remove_skipped_regions, LOWER, "pragma debug_skip_region: the region is dropped",
         optional=True),
    Pass(inject_prefetch, LOWER, "Stage.prefetch markers -> Prefetch of the region read "
         "iterations ahead", optional=True),
    Pass(inject_rolling_buffer, LOWER,
         "on N-d realize regions in tensor coordinates, before layouts"),
    Pass(apply_buffer_transforms, LOWER,
         "logical -> physical indices; pad values written / assumed"),
    Pass(simplify, LOWER, "cancel (4*io + ii)//4 and friends; drop provable guards",
         optional=True),
    Pass(_loop_partition_step, LOWER,
         "PassContext config tir.LoopPartition (or required_pass): loops guarded by likely "
         "conditions (split tails) -> a guard-free main loop and tails",
         when=lambda o: o.loop_partition is not None, optional=True, name="loop_partition",
         with_options=True),
    Pass(storage_flatten, LOWER,
         "N-d realize/loads/stores -> Allocate + one index per axis group (what TVM's lower "
         "returns)", when=lambda o: o.flatten),
    Pass(_double_buffer_step, LOWER,
         "double_buffer stages: allocation doubled and hoisted out of its loop, the write "
         "of iteration i + 1 issued before iteration i's compute (after storage_flatten, as "
         "in TVM: it works on the Allocate); config tir.InjectDoubleBuffer split_loop",
         when=lambda o: o.flatten, name="inject_double_buffer", with_options=True,
         optional=True),
    Pass(default_storage_scope, LOWER, "an unscoped stage under threadIdx is 'local', under "
         "blockIdx only 'shared' (TVM's lower prints them so); no-op without launches",
         when=lambda o: o.flatten),
    Pass(hoist_expression, LOWER,
         "loop-invariant guards out of loops, as TVM's lower places them (a reduction's init "
         "and update under one guard: LLVM drops the init store the update overwrites)",
         optional=True, when=lambda o: o.flatten),
    Pass(simplify, LOWER, "fold the index math flattening produced (after hoisting, so that "
         "build's Simplify steps meet this one's output unchanged and skip it)",
         optional=True, when=lambda o: o.flatten, label="simplify.flattened"),
    user_phase_point(1, LOWER, "TVM's phase 1: user passes after the lower phase"),
    Pass(convert_ssa, BUILD, "one binding per Var: hand-built functions and RFC 0077's opt-in "
         "passes may reuse a loop variable"),
    Pass(lower_init_block, BUILD, "blocks of a function built without tepad.lower (after "
         "convert_ssa: a hand-built function may bind a loop variable twice)",
         label="lower_init_block.build"),
    Pass(convert_blocks_to_opaque, BUILD, "(as in the lower phase)",
         label="convert_blocks_to_opaque.build"),
    Pass(lower_opaque_block, BUILD, "(as in the lower phase)", label="lower_opaque_block.build"),
    Pass(check_assumes, BUILD, "input padding promises become runtime checks",
         when=lambda o: o.checked),
    Pass(remove_assume, BUILD, "facts are not code: tir.assume goes before codegen"),
    Pass(remove_store_undef, BUILD, "stores of tir.undef (padding nobody reads) go"),
    Pass(lambda f, o: apply_intrin_lowering(f, o.target), BUILD,
         "intrinsic lowering rules the program registered (tvm.ir.register_intrin_lowering) "
         "for the target's kind", name="apply_intrin_lowering", with_options=True),
    Pass(storage_flatten, BUILD,
         "a function lowered with flatten=False (or hand-built) is flattened here; "
         "unchanged when the lower phase flattened it", label="storage_flatten.build"),
    Pass(simplify, BUILD, "fold the index math flattening produced", optional=True,
         skip_if_unchanged=True, label="simplify.build_flattened"),
    user_phase_point(2, BUILD, "TVM's phase 2: user passes after storage_flatten and its "
                     "simplify"),
    Pass(check_parallel_races, BUILD, "CPU: a parallel loop whose iterations all update one "
         "element (parallel on a reduction axis, which lower shows as TVM does) is refused",
         when=lambda o: is_cpu_kind(o.target)),
    Pass(hoist_expression, BUILD, "what the lower phase did, for a function it did not "
         "flatten", optional=True, skip_if_unchanged=True, label="hoist_expression.build"),
    Pass(_double_buffer_step, BUILD,
         "(as in the lower phase) for a function the lower phase did not flatten; "
         "unchanged otherwise", name="inject_double_buffer", with_options=True,
         optional=True, label="inject_double_buffer.build"),
    Pass(default_storage_scope, BUILD, "GPU: an allocation with no scope is 'local' under "
         "threadIdx, 'shared' under blockIdx only (TVM's StorageFlatten rule), for a function "
         "the lower phase did not flatten", when=_gpu, label="default_storage_scope.build"),
    Pass(sink_launch_allocations, BUILD, "GPU: local/shared memory allocated around a "
         "launch (a hybrid script's allocate before its bind loop) moves into the launch, "
         "one copy per thread/block", when=_gpu),
    Pass(lower_thread_allreduce, BUILD, "GPU: cross-thread reductions -> shared-memory "
         "trees with their barriers (before vthreads: a reduction per vthread gets its own "
         "tree buffer)", when=_gpu),
    Pass(inject_virtual_thread, BUILD, "GPU: vthread bindings -> per-vthread copies of "
         "what they touch, unrolled where no loop is inside", when=_gpu),
    # explicit_unroll=True whatever the config: codegen has no unroll hint for UNROLLED loops
    Pass(lambda f, o: unroll_loop(f, **{**dict(o.unroll), "explicit_unroll": True}), BUILD,
         "after simplify: unrolled extents must be constants; auto unrolling (pragma "
         "auto_unroll_max_step, tir.UnrollLoop config)", optional=True, name="unroll_loop",
         with_options=True),
    Pass(vectorize_loop, BUILD, "vectorized loops -> Ramp/Broadcast vector statements",
         optional=True),
    Pass(simplify, BUILD, "fold what unrolling and vectorizing exposed", optional=True,
         label="simplify.vectorized"),
    Pass(flatten_physical_axes, BUILD, "flat memory: one index per access",
         when=lambda o: has_flat_memory(o.target)),
    Pass(simplify, BUILD, "fold the combined group indices", skip_if_unchanged=True,
         optional=True, label="simplify.flat_memory"),
    Pass(thread_sync, BUILD, "GPU: barriers before shared-memory reads of other threads' "
         "writes (and writes after their reads); disabling it (tir.ThreadSync) leaves only "
         "the barriers a hand-built kernel has, to show a race", when=_gpu, optional=True),
    Pass(lambda f, o: verify_gpu_code(f, as_target(o.target)), BUILD,
         "GPU: unbound loops, thread extents and shared memory within the device's limits",
         when=_gpu, name="verify_gpu_code", with_options=True),
    user_phase_point(3, BUILD, "TVM's phase 3: user passes after every other pass, before the "
                     "access checks"),
    Pass(instrument_bound_checks, BUILD, "every access checked before it happens",
         when=lambda o: o.bounds_check),
    Pass(instrument_index_checks, BUILD, "accesses whose index reads memory (gathers, "
         "scatters) checked before they happen, the value in the message (default; "
         "index_check=False skips it; bounds_check covers it)",
         when=lambda o: o.index_check and not o.bounds_check, optional=True),
)


def labelled(pipeline=PIPELINE) -> list:
    """``[(label, Pass)]``: each step's ``label``; a label given twice (a hand-made pipeline
    repeating a pass without labels) gets ``#2``, ``#3``... in order of appearance."""
    seen, out = {}, []
    for p in pipeline:
        seen[p.label] = seen.get(p.label, 0) + 1
        n = seen[p.label]
        out.append((p.label if n == 1 else f"{p.label}#{n}", p))
    return out


def select(phases=PHASES, opts: Options = Options(), pipeline=PIPELINE) -> list:
    """``[(label, Pass)]`` of the passes that run in ``phases`` under ``opts``, in order, the
    user passes of ``opts`` at their phase points (``user_phase_point``)."""
    user = {}
    for k, p in opts.user_passes:
        user.setdefault(k, []).append(_user_step(k, p))
    steps = []
    for label, p in labelled(pipeline):
        if p.phase not in phases:
            continue
        if p.user_phase is not None:
            steps += user.get(p.user_phase, [])
        elif p.when(opts) and p.name not in opts.disabled:
            steps.append((label, p))
    return steps


def _user_step(phase, user_pass):
    name = getattr(user_pass, "name", None) or getattr(user_pass, "__name__", "pass")
    run = getattr(user_pass, "run", None)
    fn = (lambda f: run(f, None, PassContext.current())) if run else user_pass
    return (f"user{phase}:{name}",
            Pass(fn, LOWER if phase < 2 else BUILD, f"user pass at phase {phase}",
                 name=f"user{phase}:{name}"))


@dataclass
class Step:
    """What one pass did: its label, the function after it, seconds taken, changed or not
    (``skipped``: a ``skip_if_unchanged`` pass that did not run)."""
    label: str
    func: PrimFunc
    seconds: float
    changed: bool
    skipped: bool = False


class PassLog:
    """Runs the steps of a pipeline and records them.

    ``print_ir`` (default: ``TEPAD_PRINT_PASSES``) prints the IR after every step, or a line
    saying it changed nothing; ``verify`` (default: ``TEPAD_VERIFY_IR``) checks the IR after
    every step and raises ``InternalError`` naming the step that broke it; ``keep`` records
    every intermediate function in ``steps`` (the CLI shows them)."""

    def __init__(self, print_ir=None, verify=None, keep=False, out=None):
        self.print_ir = config.print_passes() if print_ir is None else print_ir
        self.verify = config.verify_ir() if verify is None else verify
        self.keep = keep
        self.out = out
        self.steps: list[Step] = []

    def record(self, label, before, after, seconds, skipped=False):
        step = Step(label, after, seconds, after is not before, skipped)
        if self.keep:
            self.steps.append(step)
        else:
            self.steps.append(Step(label, None, seconds, step.changed, skipped))
        if self.verify:
            for f in (after.functions() if isinstance(after, SplitFunc) else (after,)):
                verify_well_formed(f, after=label)
        if self.print_ir:
            print(format_step(step), file=self.out)
        return after

    @property
    def timings(self):
        return [(s.label, s.seconds) for s in self.steps]


def format_step(step: Step, show_unchanged_ir=False) -> str:
    """The header line for a step and, when it changed the IR, the IR after it."""
    ms = f"{step.seconds * 1e3:.1f} ms"
    if step.skipped:
        return f"# ---- {step.label}: skipped, the step before changed nothing\n"
    if not step.changed and not show_unchanged_ir:
        return f"# ---- {step.label} (unchanged, {ms})\n"
    tag = "" if step.changed else ", unchanged"
    return f"# ---- after {step.label} ({ms}{tag})\n{step.func.script()}\n"


@deep_stack
def run_pipeline(func: PrimFunc, phases=PHASES, opts: Options = Options(), log=None,
                 pipeline=PIPELINE, stop_before: str | None = None) -> PrimFunc:
    """Run the passes of ``pipeline`` selected by ``phases`` and ``opts``, in order;
    ``stop_before`` (a label such as ``"flatten_physical_axes"`` or ``"simplify.vectorized"``) ends the
    run before that step. An IRModule gives a module, each function run in turn."""
    if isinstance(func, IRModule):
        return func.with_functions({k: run_pipeline(f, phases, opts, log, pipeline, stop_before)
                                    for k, f in func.items()})
    log = log if log is not None else PassLog()
    steps = select(phases, opts, pipeline)
    if stop_before is not None:
        labels = [label for label, _ in steps]
        if stop_before not in labels:
            raise TepadError(f"stop_before={stop_before!r} is not a step of this run; steps: "
                             f"{', '.join(labels)}")
        steps = steps[:labels.index(stop_before)]
    previous_changed = True
    instruments = PassContext.current().instruments
    for label, p in steps:
        if p.skip_if_unchanged and not previous_changed:
            log.record(label, func, func, 0.0, skipped=True)
            continue
        info = None
        if instruments:
            info = PassInfo(instrument_name(p.name))
            if not should_run(instruments, as_module(func), info) and p.optional:
                log.record(label, func, func, 0.0, skipped=True)
                continue
            before(instruments, as_module(func), info)
        t0 = time.perf_counter()
        out = p.fn(func, opts) if p.with_options else p.fn(func)
        if not isinstance(out, (PrimFunc, SplitFunc)):
            raise InternalError(f"pass {label} returned {type(out).__name__}, not a PrimFunc")
        previous_changed = out is not func
        func = log.record(label, func, out, time.perf_counter() - t0)
        if info is not None:
            after(instruments, as_module(func), info)
    return func


def instrument_name(name: str) -> str:
    """The name instruments see for a pipeline step: TVM's (``tir.Simplify``) when the pass
    has one, else tepad's."""
    return _TVM_NAME_OF.get(name, name)


def run_passes(func, passes=None, log=None):
    """Run plain pass functions in order (default: the lower phase of PIPELINE)."""
    if passes is None:
        return run_pipeline(func, (LOWER,), log=log)
    if isinstance(func, IRModule):
        return func.with_functions({k: run_passes(f, passes, log) for k, f in func.items()})
    log = log if log is not None else PassLog()
    for fn in passes:
        t0 = time.perf_counter()
        out = fn(func)
        func = log.record(getattr(fn, "__name__", repr(fn)), func, out, time.perf_counter() - t0)
    return func


def _arg_tensors(s: Schedule, args):
    if not isinstance(args, (list, tuple)):
        raise TypeError(f"args must be a list of tensors, got {type(args).__name__}")
    cur, names = [], []
    states = scan_state_outputs(s)
    for k, a in enumerate(args):
        if isinstance(a, Var):       # a scalar parameter (TVM: ``build(s, [A, n])``)
            cur.append(a)
            names.append(a.name)
            continue
        if not isinstance(a, Tensor):
            raise TypeError(f"argument {k} of lower/build must be a te.Tensor or a scalar "
                            f"te.var, got {a!r}")
        if isinstance(a.op, PlaceholderOp) and a.op not in s.stage_map:
            cur.append(a)            # an input the schedule never reads: still a parameter
            names.append(a.name)
            continue
        st = s[a]
        cur.append(st.op.output(a.value_index) if not isinstance(st.op, PlaceholderOp) else a)
        names.append(a.name)
    # a scan's state placeholder passed without the scan's output stands for that output
    for k, t in enumerate(cur):
        if t in states and states[t] not in cur:
            cur[k] = states[t]
    read = set()
    for st in s.stages:
        if not isinstance(st.op, PlaceholderOp):
            read.update(t for t in st.op.input_tensors if isinstance(t.op, PlaceholderOp))
    for t in read - set(states):
        if t not in cur:
            raise TepadError(f"placeholder {t.name} is read but not in the argument list")
    return cur, names


def _outputs_not_in_args(s: Schedule, cur) -> tuple:
    """Names of the schedule's outputs missing from the argument tensors ``cur``: TVM's lower
    realizes those in scratch memory (``tvm.lower(s, [A])`` prints a sum of rows into an
    allocated ``B``); tepad's build refuses them (``refuse_scratch_outputs``), except an
    output whose operation is marked ``attrs[SECONDARY_OUTPUT]`` (a by-product such as
    NMS's count of kept boxes, which TVM programs leave out of the build)."""
    return tuple(s[op].op.output(k).name for op in s.outputs for k in range(s[op].op.num_outputs)
                 if s[op].op.output(k) not in cur
                 and not s[op].op.attrs.get(SECONDARY_OUTPUT))


def refuse_scratch_outputs(func: PrimFunc) -> PrimFunc:
    """``func`` unchanged, or a TepadError when it was lowered without some output of its
    schedule in the arguments (the kernel would compute it into memory nobody sees)."""
    missing = func.attrs.get(SCRATCH_OUTPUTS)
    if missing:
        raise TepadError(
            f"output {', '.join(missing)} of the schedule is not in the argument list, so the "
            f"kernel {func.name} would compute it into scratch memory and lose it; pass every "
            "output tensor in args to build (lower accepts it, as TVM's lower does)")
    return func


def _layouts(s: Schedule) -> dict:
    """Tensor -> (index maps, axis separators, pad value) for every transformed stage."""
    layouts = {}
    for st in s.stages:
        if st.layout_transforms:
            pads = st.pad_values
            if len(pads) > 1 and any(p is not pads[-1] for p in pads):
                pad = PadPerMap(pads)
            else:
                pad = st.pad_value
            layouts[st.op.output(0)] = (st.layout_transforms, st.axis_separators, pad)
    return layouts


def check_free_vars(func: PrimFunc) -> PrimFunc:
    """``func`` unchanged, or a TepadError naming the variables it reads that no parameter or
    argument shape binds (a symbolic size must appear in some argument's shape)."""
    missing = undefined_vars(func)
    if missing:
        names = ", ".join(v.name for v in missing)
        raise TepadError(
            f"kernel {func.name}: variables {names} are used in the body but bound by no "
            "argument buffer's shape (symbolic sizes must appear in some argument shape)")
    return func


@deep_stack
def _apply_binds(args, binds) -> tuple:
    """TVM's ``binds``: ``{tensor: Buffer}`` names the buffer an argument tensor is passed
    as; ``args`` may list the Buffer in place of the tensor. Returns the arguments as tensors
    and ``{position: Buffer}``. Only compact buffers of the tensor's shape and dtype bind
    (tepad's argument buffers are dense and row-major)."""
    if not isinstance(args, (list, tuple)):
        return args, {}               # _arg_tensors says what args must be
    binds = binds or {}
    if not isinstance(binds, dict):
        raise TepadError(f"binds must be a dict {{tensor: Buffer}}, got {type(binds).__name__}")
    by_buffer = {}
    for t, buf in binds.items():
        if not isinstance(t, Tensor) or not isinstance(buf, Buffer):
            raise TepadError(f"binds maps tensors to tir.decl_buffer buffers, got {t!r}: "
                             f"{buf!r}")
        same_shape = len(buf.shape) == len(t.shape) and all(
            structural_equal(a, b) for a, b in zip(buf.shape, t.shape))
        if not same_shape or buf.dtype != t.dtype:
            raise TepadError(f"binds: buffer {buf.name} ({list(buf.shape)}, {buf.dtype}) "
                             f"does not match tensor {t.name} ({list(t.shape)}, {t.dtype})")
        offset = buf.elem_offset
        if len(buf.strides) or not (isinstance(offset, IntImm) and offset.value == 0) or \
                len(buf.axis_separators):
            raise TepadError(f"binds: buffer {buf.name} has strides, an element offset or "
                             "axis separators; tepad binds compact row-major buffers only "
                             "(declare it as tir.decl_buffer(shape, dtype, name))")
        by_buffer[buf] = t
    out, bound = [], {}
    for k, a in enumerate(args):
        if isinstance(a, Buffer):
            t = by_buffer.get(a)
            if t is None:
                raise TepadError(f"argument {k} is the buffer {a.name}, which binds maps to "
                                 "no tensor; pass binds={tensor: buffer}")
            a = t
        out.append(a)
        if isinstance(a, Tensor) and a in binds:
            bound[k] = binds[a]
    return out, bound


def schedule_to_primfunc(s: Schedule, args, name="main", exact_bounds=False,
                         log=None, binds=None, check_vars=True) -> PrimFunc:
    """The entry of lowering: normalize -> check_reads -> infer_bound -> schedule_ops ->
    to_primfunc. ``log`` (a PassLog) records it as the step ``schedule_ops``; ``binds``
    (``{tensor: Buffer}``) gives argument tensors buffers of the caller's. ``check_vars=False``
    lets the body use variables no argument binds (``lower`` prints such a function, as
    TVM's does; building it is refused)."""
    if not isinstance(s, Schedule):
        raise TypeError(f"lower expects a Schedule, got {type(s).__name__}")
    t0 = time.perf_counter()
    args, bound = _apply_binds(args, binds)
    s2 = s.copy().normalize()
    cur, names = _arg_tensors(s2, args)
    scratch = _outputs_not_in_args(s2, cur)
    broadcast = {cur[k] for k, b in bound.items() if b.buffer_type == "auto_broadcast"}
    preconditions = check_reads([st.op for st in s2.stages],
                                [t.shape for t in cur if isinstance(t, Tensor)], broadcast)
    bounds = infer_bound(s2, exact=exact_bounds, offset_lets=True)
    stmt = schedule_ops(s2, bounds)
    func = to_primfunc(stmt, cur, names, name, _layouts(s2), bound)
    func = func.with_attr("tepad.read_preconditions", preconditions or None)
    if check_vars:
        func = check_free_vars(func)
    else:
        free = undefined_vars(func)
        if free:
            func = func.with_attr(FREE_VARS_ATTR, tuple(free))
    if scratch:
        func = func.with_attr(SCRATCH_OUTPUTS, scratch)
    if log is not None:
        log.record("schedule_ops", None, func, time.perf_counter() - t0)
    return func


def schedule_to_module(s: Schedule, args, name="main", binds=None) -> IRModule:
    """TVM's ``schedule_to_module``: an IRModule holding the function ScheduleOps builds,
    before any pass of PIPELINE (realize regions, tensors as N-d buffers). ``binds``: see
    ``lower``."""
    return IRModule({name: schedule_to_primfunc(s, args, name, binds=binds)})


def lower(s: Schedule, args=None, name="main", exact_bounds=False, passes=None, binds=None,
          simple_mode=False, log=None, flatten=True) -> IRModule:
    """An ``IRModule`` whose function ``mod[name]`` is schedule ``s`` lowered with arguments
    ``args`` (tensors, in order), as TVM's ``tvm.lower``. ``s`` may also be a PrimFunc (such
    as ``te.create_prim_func``'s) or an IRModule: the lower phase runs on it (``args`` is
    not needed).

    The function is the ``lower`` phase of PIPELINE (``lower_primfunc`` gives it without the
    module): layouts applied, then flattened as TVM's lower flattens, one index per axis group
    of each buffer (RFC 0039 axis separators), ``tir.assume`` / ``tir.undef`` kept.
    ``flatten=False`` (tepad's addition) stops before storage_flatten: realize regions and
    physical N-d buffers, the form RFC 0077's opt-in passes (remove_no_op,
    reduce_loop_extents, ...) work on; ``tepad.build`` flattens such a function itself.
    ``tepad.build`` runs the ``build`` phase.
    ``passes`` (a list of pass functions) replaces the lower phase.
    ``simple_mode`` is accepted for TVM scripts (tepad's printout is always the simple one);
    ``binds`` (``{tensor: tir.decl_buffer(...)}``, TVM's custom argument buffers): the
    tensor is passed as that buffer, which ``args`` may list in its place; compact
    row-major buffers only (strides or an element offset are refused).
    Lowering runs on a deep stack (``tepad.support.deep_stack``: a worker thread; while it
    runs, the interpreter's recursion limit is at least 40000), so pipelines nested 100
    stages deep lower as well.

    ``s`` may also be a hand-built ``PrimFunc`` or an ``IRModule`` of them (TVM's
    ``tvm.lower(func)``): ``args`` is then ignored, as in TVM, and every function runs the
    lower phase. Variables the body uses but no argument binds are left free (TVM's
    ``lower`` prints them too); ``tepad.build`` refuses them."""
    if isinstance(s, PrimFunc):                 # TVM's lower_primfunc: named ``name``
        s = IRModule({name: s.with_attr("global_symbol", name)})
    if isinstance(s, IRModule):
        log = log if log is not None else PassLog()
        opts = Options.from_context(flatten=flatten)
        return IRModule({k: run_passes(f, passes, log) if passes is not None else
                         run_pipeline(f, (LOWER,), opts, log) for k, f in s.items()})
    if args is None:
        raise TepadError("lower(schedule, args): args (the tensors, in order) are required "
                         "when lowering a schedule")
    func = lower_primfunc(s, args, name, exact_bounds, passes, binds, log, flatten,
                          check_vars=False)
    return IRModule({name: func})


@deep_stack
def lower_primfunc(s: Schedule, args, name="main", exact_bounds=False, passes=None, binds=None,
                   log=None, flatten=True, check_vars=True) -> PrimFunc:
    """What ``lower`` puts in its module: the lowered ``tir.PrimFunc`` itself."""
    log = log if log is not None else PassLog()
    func = schedule_to_primfunc(s, args, name, exact_bounds, log, binds, check_vars)
    if passes is not None:
        return run_passes(func, passes, log)
    return run_pipeline(func, (LOWER,), Options.from_context(flatten=flatten), log)


@deep_stack
def lower_for_codegen(s_or_func, args=None, name="main", opts: Options = Options(),
                      exact_bounds=False, log=None) -> PrimFunc:
    """Every step of PIPELINE: from a schedule (entry + both phases) or from an already lowered
    PrimFunc or one-function IRModule (the build phase). What ``tepad.build`` hands to the
    code generator."""
    log = log if log is not None else PassLog()
    if isinstance(s_or_func, IRModule):
        s_or_func = s_or_func.only_function("build")
    if isinstance(s_or_func, Schedule):
        if args is None:
            raise TypeError("build(schedule, args): args (the tensors, in order) are required")
        func = refuse_scratch_outputs(schedule_to_primfunc(s_or_func, args, name,
                                                           exact_bounds, log))
        return run_pipeline(func, PHASES, opts, log)
    if isinstance(s_or_func, PrimFunc):
        return run_pipeline(check_free_vars(refuse_scratch_outputs(s_or_func)), (BUILD,),
                            opts, log)
    raise TypeError(f"build expects a Schedule or a PrimFunc, got {type(s_or_func).__name__}")


__all__ = ["PIPELINE", "Pass", "Options", "PassLog", "Step", "LOWER", "BUILD", "PHASES",
           "labelled", "select", "run_pipeline", "run_passes", "schedule_to_primfunc",
           "schedule_to_module", "lower",
           "lower_primfunc",
           "lower_for_codegen", "format_step"]
