"""``PassContext``: options for ``tepad.lower`` / ``tepad.build`` inside a ``with`` block
(TVM's ``tvm.transform.PassContext``).

    with tepad.transform.PassContext(config={"tir.instrument_bound_checkers": True}):
        mod = tepad.build(s, [A, B])          # as build(..., bounds_check=True)

    with tepad.transform.PassContext(disabled_pass=["tir.VectorizeLoop"]):
        mod = tepad.build(s, [A, B])          # vectorized loops run as serial loops

``instruments`` (``tepad.ir.instrument``) are called around every pass run inside the
block. What it changes is which passes of ``PIPELINE`` run (``Options``), nothing else: ``config``
keys are the ones in ``CONFIG_KEYS``; ``disabled_pass`` names a pass by tepad's name
(``vectorize_loop``) or TVM's (``tir.VectorizeLoop``), and only passes the code generator can
do without (``Pass.optional``) may be disabled; a TVM pass tepad has no counterpart of
(``NO_COUNTERPART``, e.g. ``tir.CommonSubexprElimTIR``) may be named and changes nothing. ``opt_level`` is recorded for TVM scripts;
tepad always optimizes with LLVM at O3.
"""
from __future__ import annotations


from ..errors import TepadError
from ..support.context_stack import ContextStack
from ..tir import transform as tir_transform
from .instrument import check_instruments, enter, exit_
from .passes import TVM_NAMES

# TVM's config keys that tepad honours, and what each does.
CONFIG_KEYS = {
    "tir.disable_vectorize": "vectorized loops run as serial loops (vectorize_loop skipped)",
    "tir.instrument_bound_checkers": "every buffer access is checked (as bounds_check=True)",
    "tepad.index_check": "True (default): loads and stores whose index reads memory (gathers, "
                         "scatters) are checked and raise TepadError with the value; False "
                         "removes those checks (as build(..., index_check=False))",
    "tir.add_lower_pass": "[(phase, pass), ...]: user passes run at phase 0 (before the "
                          "lower phase), 1 (after it), 2 (after storage_flatten) or 3 (last)",
    "tir.noalias": "accepted; tepad always marks distinct argument buffers noalias (a buffer "
                   "passed twice is not marked)",
    "tir.disable_cse_tir": "accepted; tepad has no TIR common-subexpression pass (LLVM's "
                           "GVN does that work)",
    "tir.debug_keep_trivial_loop": "accepted; tepad's lowering keeps no trivial loops",
    "tir.disable_storage_rewrite": "accepted; StorageRewrite is not in tepad's pipeline "
                                   "(tir.transform.StorageRewrite() applies it)",
    "tir.disable_assert": "accepted; the asserts tepad emits guard memory (bounds_check=True, "
                          "checked=True) and stay",
    "tir.UnrollLoop": "{'auto_max_step': n, 'auto_max_depth': d, 'auto_max_extent': e, "
                      "'explicit_unroll': b}: small inner loops unrolled as TVM's UnrollLoop "
                      "picks them (unroll_loop); tepad always unrolls explicitly",
    "tir.LoopPartition": "{'partition_const_loop': b, 'no_unroll_loop_with_extent_one': b, "
                         "'unroll_loop_with_partition_hint_no_interval': b}: loop_partition "
                         "runs in the lower phase (loops guarded by likely conditions split "
                         "into a guard-free main loop and tails; constant loops too with "
                         "partition_const_loop)",
    "te.keep_schedule_record": "True: a schedule keeps a copy of itself after its creation "
                               "and after every primitive (Schedule.schedule_record, "
                               "Schedule.primitive_record)",
    "tir.HoistIfThenElse": "{'support_block_scope_hosting': b}: tir.transform."
                           "HoistIfThenElse() also hoists across thread and attribute scopes "
                           "(the pass is not in the pipeline)",
    "tir.InjectDoubleBuffer": "{'split_loop': f}: inject_double_buffer repeats the body of "
                              "a double-buffered loop f times per round (default 1; 0: the "
                              "loop is not split)",
}

# TVM passes tepad has no counterpart of, because LLVM or another tepad pass does that work:
# disabling one changes nothing, so it is accepted (TVM scripts disable them for stable IR).
NO_COUNTERPART = {
    "tir.CommonSubexprElimTIR": "LLVM's GVN/EarlyCSE eliminate common subexpressions",
    "tir.NarrowDataType": "not in tepad's pipeline (index dtypes stay as written); "
                          "tir.transform.NarrowDataType(bits) applies it",
    "tir.StorageRewrite": "not in tepad's pipeline (each stage keeps its allocation); "
                          "tir.transform.StorageRewrite() applies it to a lowered module",
    "tir.LowerIntrin": "codegen lowers intrinsics itself; tir.transform.LowerIntrin() "
                       "applies the same mapping as a pass",
}

# TVM's pass names (``tir.VectorizeLoop``) -> tepad's (``vectorize_loop``).
TVM_PASS_NAMES = {f"tir.{k}": fn.__name__ for k, fn in TVM_NAMES.items()}

_stack = ContextStack()


def pass_name(name: str) -> str:
    """tepad's name for a pass named the TVM way (``tir.VectorizeLoop``) or tepad's way."""
    return TVM_PASS_NAMES.get(name, name)


class PassContext:
    """The options of the innermost ``with PassContext(...)`` apply to lower and build."""

    def __init__(self, opt_level=2, required_pass=None, disabled_pass=None, instruments=None,
                 config=None):
        self.opt_level = opt_level
        self.required_pass = list(required_pass or [])
        self.disabled_pass = list(disabled_pass or [])
        self.instruments = check_instruments(instruments)
        self.config = dict(config or {})
        unknown = [k for k in self.config if k not in CONFIG_KEYS]
        if unknown:
            raise TepadError(f"PassContext config key {unknown[0]!r} is not one tepad knows; "
                             f"known keys: {', '.join(sorted(CONFIG_KEYS))}")

    @property
    def disabled(self) -> frozenset:
        """tepad's names of the passes this context turns off."""
        names = {pass_name(n) for n in self.disabled_pass if n not in NO_COUNTERPART}
        if self.config.get("tir.disable_vectorize"):
            names.add("vectorize_loop")
        return frozenset(names)

    @property
    def user_passes(self) -> tuple:
        """``((phase, pass), ...)`` from ``config["tir.add_lower_pass"]``, checked."""
        out = []
        for item in self.config.get("tir.add_lower_pass", ()):
            try:
                phase, p = item
            except (TypeError, ValueError):
                raise TepadError("tir.add_lower_pass takes (phase, pass) pairs, got "
                                 f"{item!r}") from None
            if phase not in (0, 1, 2, 3) or not callable(p):
                raise TepadError(f"tir.add_lower_pass: ({phase!r}, {p!r}) needs a phase 0-3 "
                                 "and a pass (a callable on a PrimFunc)")
            out.append((phase, p))
        return tuple(out)

    @property
    def bounds_check(self) -> bool:
        return bool(self.config.get("tir.instrument_bound_checkers"))

    @property
    def index_check(self) -> bool:
        """Whether data-dependent indices are checked (config ``tepad.index_check``,
        default True); a value that is not a bool is a TepadError."""
        v = self.config.get("tepad.index_check", True)
        if not isinstance(v, bool):
            raise TepadError(f"PassContext config 'tepad.index_check' takes True or False, "
                             f"got {v!r}")
        return v

    def __enter__(self):
        enter(self.instruments)
        _stack.push(self)
        return self

    def __exit__(self, *exc):
        _stack.pop()
        exit_(self.instruments)

    @staticmethod
    def list_configs() -> dict:
        """Every config key tepad knows, with what it does (TVM lists its registered keys
        with their types)."""
        return dict(CONFIG_KEYS)

    def override_instruments(self, instruments) -> None:
        """Replace this context's instruments (the old ones exit, the new ones enter when
        the context is active)."""
        new = check_instruments(instruments)
        active = self in _stack
        if active:
            exit_(self.instruments)
        self.instruments = new
        if active:
            enter(self.instruments)

    @staticmethod
    def current() -> "PassContext":
        """The innermost active context of this thread (a default one when none is)."""
        ctx = _stack.top()
        return ctx if ctx is not None else PassContext()

    def __repr__(self):
        return (f"PassContext(opt_level={self.opt_level}, disabled_pass={self.disabled_pass}, "
                f"config={self.config})")


tir_transform.set_context_provider(lambda: PassContext.current().config,
                                   lambda: PassContext.current().instruments)

__all__ = ["PassContext", "CONFIG_KEYS", "NO_COUNTERPART", "TVM_PASS_NAMES", "pass_name"]
