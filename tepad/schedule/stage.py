"""Stage: how one operation is computed (loop structure, attachment, annotations)."""
from __future__ import annotations

import enum
import warnings

import numpy as np

from ..arith.index_map import IndexMap
from ..errors import TepadError
from ..tir import dtype as dt
from ..tir.expr import BufferLoad, IntImm, ProducerLoad, Range, StringImm, Var, convert
from ..tir.buffer import AXIS_SEPARATOR
from ..tir.functor import post_order_visit, substitute
from ..tir.itervar import IterVar, IterVarType
from ..tir.storage_scope import split_storage_scope
from ..tensor.hybrid import HybridOp
from ..tensor.scan import ScanOp
from ..tensor.tensor import ComputeOp, PlaceholderOp, Tensor
from ..tensor.tensor_intrin import TensorComputeOp
from .relations import Fuse, Rebase, Singleton, Split, Transform
from .tensorize import check_tensorize

# operations with loops of their own (a TensorComputeOp's opaque axes are no loops)
_LOOPED = (ComputeOp, TensorComputeOp)
# what a HybridOp stage's axes take (lowering rebuilds those loops)
_HYBRID_PRIMITIVES = ("split", "fuse", "reorder", "vectorize", "unroll", "parallel", "pragma",
                      "bind")


class AttachType(enum.IntEnum):
    """Where a stage is computed: at the root (GroupRoot), inlined into its consumers (Inline,
    InlinedAlready once done), inside a loop of another stage (Scope, compute_at), or at every
    time step of a scan (ScanUpdate: the stages of a te.scan's body, ``attach_stage`` the
    scan)."""

    GroupRoot = 1
    Inline = 2
    InlinedAlready = 3
    Scope = 4
    ScanUpdate = 5


class IterVarAttr:
    """Per-axis annotations: loop kind (vectorize/unroll/parallel), thread binding, pragmas
    (``pragma_keys``: StringImm, ``pragma_values``: expression or None, in call order),
    prefetches (``prefetch_data``: tensors, ``prefetch_offset``: expressions) and the storage
    alignment of a root axis (``dim_align_factor`` 0: none; ``dim_align_offset``)."""

    def __init__(self, iter_type=None, bind_thread=None, tensor_intrin=None):
        self.iter_type = iter_type
        self.bind_thread = bind_thread
        self.tensor_intrin = tensor_intrin
        self.pragma_keys: list = []
        self.pragma_values: list = []
        self.prefetch_data: list = []
        self.prefetch_offset: list = []
        self.dim_align_factor = 0
        self.dim_align_offset = 0

    def copy(self):
        a = IterVarAttr(self.iter_type, self.bind_thread, self.tensor_intrin)
        a.pragma_keys = list(self.pragma_keys)
        a.pragma_values = list(self.pragma_values)
        a.prefetch_data = list(self.prefetch_data)
        a.prefetch_offset = list(self.prefetch_offset)
        a.dim_align_factor, a.dim_align_offset = self.dim_align_factor, self.dim_align_offset
        return a


def _known_thread_tag(tag) -> bool:
    """Whether TVM's ThreadScope knows ``tag`` (or it is the ``pipeline`` tag)."""
    return tag in ("blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y",
                   "threadIdx.z", "cthread", "pipeline") or tag.startswith("vthread")


_SPLITTABLE = (IterVarType.DataPar, IterVarType.CommReduce, IterVarType.Ordered)


class Stage:
    """The schedule of one operation. Compared and hashed by identity."""

    def __init__(self, op, schedule=None):
        self.op = op
        self.origin_op = op
        self.schedule = schedule
        roots = list(op.root_iter_vars) if isinstance(op, _LOOPED + (ScanOp, HybridOp)) \
            else []
        self.all_iter_vars = list(roots)
        # opaque roots (a scan's spatial axes) are not loops
        self.leaf_iter_vars = [iv for iv in roots if iv.iter_type != IterVarType.Opaque]
        self.relations: list = []
        self.iter_var_attrs: dict = {}
        self.attach_type = AttachType.GroupRoot
        self.attach_ivar = None
        self.attach_stage = None
        # why the last compute_at was refused: raised when the schedule is bounded/lowered
        self.attach_error = None
        # the scan stage whose body this stage belongs to (compute_root puts it back there)
        self.scan_stage = None
        self.group = None       # the innermost GroupStage holding this stage (create_group)
        self.scope = ""
        self.is_output = False
        # rolling_buffer is a method; the flag lives in ``is_rolling``
        self.is_rolling = False
        self.store_predicate = None     # set_store_predicate: extra guard on the stores
        self.is_double_buffered = False  # double_buffer(): lowered by inject_double_buffer
        # transform_layout: the maps in order, the axis separators and pad value of the last
        self.layout_transforms: list = []
        self.axis_separators: list = []
        self.pad_value = None
        self.pad_values: list = []      # one per transform: the padding each introduced
        self._layout_axes = list(op.axis) if isinstance(op, ComputeOp) else []

    # --- helpers ----------------------------------------------------------------------------
    @property
    def name(self):
        """The name of the operation this stage was created for (kept across rewrites)."""
        return self.origin_op.name

    def __repr__(self):
        return f"stage({self.name}, {type(self.op).__name__})"

    def __str__(self):
        lines = [f"stage {self.name} ({type(self.op).__name__})"]
        if isinstance(self.op, _LOOPED):
            lines.append("  root: " + ", ".join(iv.name for iv in self.op.root_iter_vars))
        for r in self.relations:
            lines.append(f"  {r!r}")
        lines.append("  leaves: " + ", ".join(iv.name for iv in self.leaf_iter_vars))
        if self.attach_type == AttachType.Scope:
            lines.append(f"  compute_at {self.attach_stage.name}.{self.attach_ivar.name}")
        elif self.attach_type == AttachType.ScanUpdate:
            lines.append(f"  in the body of scan {self.attach_stage.name}")
        elif self.attach_type != AttachType.GroupRoot:
            lines.append(f"  {self.attach_type.name}")
        return "\n".join(lines)

    def _leaf_names(self):
        return "[" + ", ".join(iv.name for iv in self.leaf_iter_vars) + "]"

    def _check_compute(self, what, tensor_compute=True):
        if isinstance(self.op, HybridOp) and what in _HYBRID_PRIMITIVES:
            return              # the loops of a hybrid script's outer nest (HybridOp.axis)
        if isinstance(self.op, TensorComputeOp) and not tensor_compute:
            raise TepadError(f"stage {self.name}: {what} needs a te.compute with a scalar "
                             f"body; {self.name} calls the tensor intrinsic "
                             f"{self.op.intrin.name}")
        if not isinstance(self.op, _LOOPED):
            raise TepadError(f"stage {self.name}: {what} needs a compute stage, but "
                             f"{self.name} is a {type(self.op).__name__}")

    def _leaf_index(self, iv, what):
        if not isinstance(iv, IterVar):
            raise TepadError(f"stage {self.name}: {what} expects IterVars, got {iv!r}")
        for k, x in enumerate(self.leaf_iter_vars):
            if x is iv:
                return k
        if isinstance(self.op, TensorComputeOp) and any(x is iv for x in self.op.axis):
            raise TepadError(
                f"stage {self.name}: {what} on {iv.name}, an axis the tensor intrinsic "
                f"{self.op.intrin.name} computes whole in each call, not a loop; the leaf "
                f"axes of {self.name} are {self._leaf_names()}")
        if any(x is iv for x in self.all_iter_vars):
            raise TepadError(
                f"stage {self.name}: {what} on {iv.name}, which is no longer a leaf (it was "
                f"already split or fused); the current leaf axes are {self._leaf_names()}")
        raise TepadError(
            f"stage {self.name}: {what} on {iv.name}, which is not an axis of this stage "
            f"(it belongs to another stage); the leaf axes of {self.name} are "
            f"{self._leaf_names()}")

    # --- loop structure -----------------------------------------------------------------------
    def split(self, parent, factor=None, nparts=None, disable_predication=False, tail="guard"):
        """Split ``parent`` into ``(outer, inner)`` by ``factor`` (inner extent) or ``nparts``.

        ``factor``/``nparts`` must be an integer: a Python/numpy int (not a bool) or an
        integer expression (e.g. a ``te.var``); anything else raises a TepadError naming the
        stage and the axis, as does a constant that is not positive.

        ``disable_predication=True`` is recorded on the Split (TVM: emit no guard for this
        split, the user accepting overcompute). tepad emits no guard where the split provably
        divides, as always; where it may not, tepad keeps the guard, since storing past the
        region would write out of bounds.

        ``tail`` (tepad's, after Halide's TailStrategy) says what the last, partial tile of a
        ``factor`` split that may not divide does: ``"guard"`` (the default, TVM's
        behaviour): every point is tested against the extent (a vectorized inner loop runs
        the partial vector of that tile as ``tepad.lower.passes.vectorize_loop.TAILS``
        says: a scalar loop, masked vector code, or halving vectors); ``"shift"`` (Halide's
        ShiftInwards): the last tile is moved inward to end at the extent, ``parent =
        min(outer * factor, extent - factor) + inner``, so it recomputes a few points of the
        tile before it and needs no test at all. Lowering shifts only where that is legal and
        otherwise keeps the guard: the stage is a compute stage without reduction axes (it
        stores the same values again, never accumulates twice), ``parent`` (a root
        axis or a loop made by split/fuse) has a constant extent of at least ``factor`` (the
        shifted tile stays inside the stage's region, so it reads only what the unshifted
        points read), ``factor`` is a
        constant, and no other stage is computed at a loop of this stage that the shift moves
        (that stage's region would be inferred for the unshifted tile).
        """
        if tail not in ("guard", "shift"):
            raise TepadError(f"stage {self.name}: split({getattr(parent, 'name', parent)}) "
                             f"tail={tail!r}; tail is 'guard' (test each point) or 'shift' "
                             "(move the last tile inward)")
        if tail == "shift" and factor is None:
            raise TepadError(f"stage {self.name}: split({getattr(parent, 'name', parent)}) "
                             "tail='shift' needs factor= (the tile that is shifted), not nparts=")
        self._check_compute("split")
        k = self._leaf_index(parent, "split")
        self._check_unbound(parent, "split")
        if (factor is None) == (nparts is None):
            raise TepadError(f"stage {self.name}: split({parent.name}) needs exactly one of "
                             "factor= or nparts=")
        which = "factor" if factor is not None else "nparts"
        amount = self._split_amount(parent, which, factor if factor is not None else nparts)
        if isinstance(amount, IntImm) and amount.value <= 0:
            raise TepadError(f"stage {self.name}: split({parent.name}) factor/nparts must be "
                             f"positive, got {amount.value}")
        if parent.iter_type not in _SPLITTABLE:
            raise TepadError(f"stage {self.name}: cannot split {parent.name} of type "
                             f"{parent.iter_type.name}")
        dtype = parent.var.dtype
        outer = IterVar(None, Var(parent.name + ".outer", dtype), parent.iter_type)
        inner = IterVar(None, Var(parent.name + ".inner", dtype), parent.iter_type)
        self.relations.append(Split(parent, outer, inner,
                                    amount if factor is not None else None,
                                    amount if nparts is not None else None,
                                    bool(disable_predication), tail))
        self.all_iter_vars += [outer, inner]
        self.leaf_iter_vars[k:k + 1] = [outer, inner]
        return outer, inner

    def _split_amount(self, parent, which, value):
        """``value`` as an integer expression, or a TepadError saying why it is not one."""
        if isinstance(value, (bool, np.bool_)):
            raise TepadError(f"stage {self.name}: split({parent.name}) {which}={value!r} is a "
                             f"bool; {which} must be a positive integer")
        if isinstance(value, (float, np.floating)):
            raise TepadError(f"stage {self.name}: split({parent.name}) {which}={value!r} is not "
                             f"an integer; {which} must be a positive integer (the extent of "
                             f"the {'inner' if which == 'factor' else 'outer'} loop), "
                             f"e.g. {which}={max(1, int(value))}")
        try:
            amount = convert(value)
        except TypeError:
            raise TepadError(f"stage {self.name}: split({parent.name}) {which}={value!r} is not "
                             f"an integer; {which} must be a positive integer or an integer "
                             "expression") from None
        if not dt.is_int(amount.dtype):
            raise TepadError(f"stage {self.name}: split({parent.name}) {which}={value!r} has "
                             f"dtype {amount.dtype}; {which} must be a positive integer or an "
                             "integer expression")
        return amount

    def fuse(self, *args):
        """Fuse adjacent leaf axes into one, pairwise from the first (each pair outer first,
        or inner first as TVM allows: the two are swapped); ``fuse()`` adds a unit loop."""
        self._check_compute("fuse")
        ivs = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else \
            list(args)
        if not ivs:
            single = IterVar(None, Var("singleton", "int32"))
            self.relations.append(Singleton(single))
            self.all_iter_vars.append(single)
            self.leaf_iter_vars.insert(0, single)
            return single
        fused = ivs[0]
        for nxt in ivs[1:]:
            fused = self._fuse2(fused, nxt)
        return fused

    def _fuse2(self, a, b):
        ka, kb = self._leaf_index(a, "fuse"), self._leaf_index(b, "fuse")
        self._check_unbound(a, "fuse")
        self._check_unbound(b, "fuse")
        name = f"{a.name}.{b.name}.fused"     # TVM names it in the order given
        if kb == ka - 1:
            # the inner axis named first: TVM swaps the two (Stage::fuse), so does tepad
            a, b, ka, kb = b, a, kb, ka
        if kb != ka + 1:
            raise TepadError(f"stage {self.name}: can only fuse adjacent leaf axes; {a.name} "
                             f"and {b.name} are not neighbours in {self._leaf_names()}")
        for x in (a, b):
            if x.iter_type not in _SPLITTABLE:
                raise TepadError(f"stage {self.name}: cannot fuse {x.name} of type "
                                 f"{x.iter_type.name}")
        dtype = a.var.dtype if a.var.dtype == "int64" or b.var.dtype != "int64" else b.var.dtype
        itype = max(a.iter_type, b.iter_type)
        fused = IterVar(None, Var(name, dtype), itype)
        self.relations.append(Fuse(a, b, fused))
        self.all_iter_vars.append(fused)
        self.leaf_iter_vars[ka:kb + 1] = [fused]
        return fused

    def reorder(self, *args):
        """Put the given leaves in this order, in the positions they occupy together."""
        self._check_compute("reorder")
        ivs = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else \
            list(args)
        pos = [self._leaf_index(iv, "reorder") for iv in ivs]
        if len(set(pos)) != len(pos):
            raise TepadError(f"stage {self.name}: reorder got the same axis twice: "
                             f"{[iv.name for iv in ivs]}")
        for p, iv in zip(sorted(pos), ivs):
            self.leaf_iter_vars[p] = iv

    def tile(self, x_parent, y_parent, x_factor, y_factor):
        """Split two axes and reorder to ``(xo, yo, xi, yi)``, which it returns: the same as
        two ``split(..., factor=)`` calls and a ``reorder``, with the same checks."""
        xo, xi = self.split(x_parent, factor=x_factor)
        yo, yi = self.split(y_parent, factor=y_factor)
        self.reorder(xo, yo, xi, yi)
        return xo, yo, xi, yi

    # --- attachment ---------------------------------------------------------------------------
    def compute_at(self, parent, ivar):
        """Compute this stage inside loop ``ivar`` of stage ``parent``.

        An attachment that can never lower (an output stage, the stage itself, a cycle of
        attachments) is accepted here and raised as a TepadError when the schedule is bounded
        or lowered, as TVM does; a later compute_at/compute_root/compute_inline replaces it."""
        self._check_compute("compute_at")
        if isinstance(parent, (Tensor,)) and self.schedule is not None:
            parent = self.schedule[parent]
        if not isinstance(parent, Stage):
            raise TepadError(f"stage {self.name}: compute_at expects a Stage, got {parent!r}")
        parent._leaf_index(ivar, f"compute_at({self.name})")
        group = getattr(self, "group", None)
        if group is not None:
            # TVM's rule: a stage of a group is attached only inside that group
            pg = getattr(parent, "group", None)
            while pg is not None and pg is not group:
                pg = pg.group
            if pg is not group:
                raise TepadError(
                    f"stage {self.name} belongs to {group!r}: it can be computed at a stage "
                    f"of that group only, and {parent.name} is not in it; attach the group "
                    "(group.compute_at) instead")
        refusal = self._attach_refusal(parent)
        if refusal is not None:
            # TVM accepts the call and fails when the schedule is lowered; so does tepad
            self.attach_error = refusal
            return
        self.attach_error = None
        self.attach_type = AttachType.Scope
        self.attach_ivar = ivar
        self.attach_stage = parent

    def _attach_refusal(self, parent):
        """Why attaching this stage inside ``parent`` can never lower (an output, itself, a
        cycle), or None."""
        if self.is_output:
            return (f"stage {self.name} is an output; outputs are computed at the root and "
                    "cannot be attached with compute_at")
        if parent is self:
            return f"stage {self.name}: cannot compute_at itself"
        s = parent
        seen = set()
        while s is not None and s.attach_type == AttachType.Scope:
            if s is self or id(s) in seen:
                return (f"compute_at cycle: {parent.name} is (transitively) computed at "
                        f"{self.name}, so {self.name} cannot be computed at {parent.name}")
            seen.add(id(s))
            s = s.attach_stage
        if s is self:
            return f"compute_at cycle: {parent.name} is computed at {self.name}"
        return None

    def compute_inline(self):
        """Compute this stage where it is read (its body substituted into its consumers; no
        buffer of its own). Outputs are refused here; multi-output and reduction stages are
        accepted and refused when the schedule is bounded or lowered, as in TVM (whose
        InjectInline fails at build), so a program that expects build to fail sees it there;
        a later compute_at / compute_root replaces the refused inlining."""
        self._check_compute("compute_inline", tensor_compute=False)
        if self.is_output:
            raise TepadError(f"stage {self.name} is an output and cannot be inlined")
        if self.op.num_outputs != 1:
            self.attach_error = f"stage {self.name} has several outputs and cannot be inlined"
            return
        if self.op.reduce_axis:
            self.attach_error = (f"stage {self.name} is a reduction and cannot be inlined; use "
                                 "compute_at instead")
            return
        scan = self._scan_reading(self.op.output(0))
        if scan is not None:
            raise TepadError(f"stage {self.name} is an init or update of scan {scan.name} and "
                             "cannot be inlined (the scan stores it as its state); inline the "
                             "stages it reads instead")
        self.attach_type = AttachType.Inline
        self.attach_ivar = self.attach_stage = None
        self.attach_error = None

    def compute_root(self):
        """Compute this stage in its own loop nest at the root (undoes compute_at/inline); a
        stage of a scan's body goes back to the scan's time step, where it belongs."""
        self._check_compute("compute_root")
        self.attach_type = AttachType.GroupRoot
        self.attach_ivar = self.attach_stage = None
        self.attach_error = None
        if self.scan_stage is not None:
            self.attach_type = AttachType.ScanUpdate
            self.attach_stage = self.scan_stage

    def _scan_reading(self, tensor):
        """The scan operation of this schedule whose init, update or state placeholder is
        ``tensor``, or None."""
        if self.schedule is None:
            return None
        for st in self.schedule.stages:
            if isinstance(st.op, ScanOp) and \
                    tensor in st.op.init + st.op.update + st.op.state_placeholder:
                return st.op
        return None

    # --- annotations --------------------------------------------------------------------------
    def _annotate(self, iv, kind, what):
        self._check_compute(what)
        self._leaf_index(iv, what)
        if kind == IterVarType.Vectorized and iv.iter_type == IterVarType.CommReduce:
            raise TepadError(f"stage {self.name}: cannot {what} reduction axis {iv.name}")
        self.iter_var_attrs.setdefault(iv, IterVarAttr()).iter_type = kind

    def vectorize(self, iv):
        """Mark leaf ``iv`` as vectorized (its loop becomes vector statements when built);
        a reduction axis is refused."""
        self._annotate(iv, IterVarType.Vectorized, "vectorize")

    def unroll(self, iv):
        """Mark leaf ``iv`` to be unrolled when built (its extent must then be a constant)."""
        self._annotate(iv, IterVarType.Unrolled, "unroll")

    def parallel(self, iv):
        """Mark leaf ``iv`` as a parallel loop (threads on the CPU). On a reduction axis, as
        in TVM, ``lower`` shows the parallel loop, and ``build`` refuses it (every iteration
        updates the same element: a data race)."""
        self._annotate(iv, IterVarType.Parallelized, "parallel")

    def tensorize(self, var, tensor_intrin):
        """Compute the loops at and below leaf ``var`` with one call of ``tensor_intrin``
        (``te.decl_tensor_intrin``); a stage that calls a tensor intrinsic takes one declared
        over a compute calling that same intrinsic (several calls at once). Checked here:
        ``var`` is a leaf, the intrinsic's kind;
        checked when lowering: the intrinsic computes what those loops compute (same
        expression, same reduction) over a tile of the same shape."""
        composed = isinstance(getattr(tensor_intrin, "op", None), TensorComputeOp)
        self._check_compute("tensorize", tensor_compute=composed)
        self._leaf_index(var, "tensorize")
        check_tensorize(self, var, tensor_intrin)
        attr = self.iter_var_attrs.setdefault(var, IterVarAttr())
        attr.iter_type = IterVarType.Tensorized
        attr.tensor_intrin = tensor_intrin

    def bind(self, iv, thread_iv):
        """Bind leaf ``iv`` to the thread axis ``thread_iv`` (``te.thread_axis``). Bound
        inference honours it; building for the CPU refuses thread bindings.

        As in TVM, ``iv`` must be a data-parallel or reduction leaf axis; the thread axis'
        tag must be one TVM knows (``blockIdx.{x,y,z}``, ``threadIdx.{x,y,z}``, ``vthread``,
        ``cthread``, ``pipeline``; TVM only fails on an unknown tag later, tepad here).
        Binding an axis again to another thread axis rebinds it with a warning (TVM's
        behaviour). Splitting or fusing a bound axis afterwards is a TepadError (TVM accepts it
        and silently drops the binding)."""
        self._check_compute("bind")
        self._leaf_index(iv, "bind")
        if not isinstance(thread_iv, IterVar) or thread_iv.iter_type != IterVarType.ThreadIndex:
            raise TepadError(f"stage {self.name}: bind({iv.name}, ...) needs a te.thread_axis")
        tag = thread_iv.thread_tag
        if not _known_thread_tag(tag):
            raise TepadError(f"stage {self.name}: bind({iv.name}, ...) to a thread axis tagged "
                             f"{tag!r}; valid tags are blockIdx.x/y/z, threadIdx.x/y/z, "
                             "vthread, cthread and pipeline")
        if iv.iter_type not in (IterVarType.DataPar, IterVarType.CommReduce):
            raise TepadError(f"stage {self.name}: cannot bind {iv.name}, an axis of type "
                             f"{iv.iter_type.name}, to {tag}; only data-parallel and "
                             "reduction axes can be bound to threads")
        attr = self.iter_var_attrs.setdefault(iv, IterVarAttr())
        old = attr.bind_thread
        if old is not None and old is not thread_iv:
            warnings.warn(f"stage {self.name}: axis {iv.name} was bound to {old.thread_tag} "
                          f"({old.var.name}); it is now bound to {tag} ({thread_iv.var.name})",
                          stacklevel=2)
        attr.bind_thread = thread_iv

    def _check_unbound(self, iv, what):
        """A TepadError when leaf ``iv`` is bound to a thread: splitting or fusing it would
        leave the binding on an axis that is no longer a loop (TVM drops it silently)."""
        attr = self.iter_var_attrs.get(iv)
        b = attr.bind_thread if attr is not None else None
        if b is not None:
            raise TepadError(
                f"stage {self.name}: {what} of {iv.name}, which is bound to {b.thread_tag}; "
                f"the binding would be lost (only a loop can be bound). {what.capitalize()} "
                f"first, then bind the resulting axes")

    def pragma(self, var, pragma_type, pragma_value=None):
        """Annotate leaf ``var`` with ``pragma_type`` (TVM's ``Stage.pragma``): the loop is
        wrapped in ``AttrStmt(var, "pragma_<type>", value or 1)``. ``"unroll"`` and
        ``"vectorize"`` are the loop annotations of those names. What tepad does with each
        pragma: docs/primitives.md (pragmas); an unknown one is kept in the IR and changes
        nothing (as in TVM)."""
        self._check_compute("pragma")
        self._leaf_index(var, "pragma")
        if not isinstance(pragma_type, str) or not pragma_type:
            raise TepadError(f"stage {self.name}: pragma({var.name}, {pragma_type!r}) needs "
                             "the pragma type as a non-empty string, e.g. "
                             "'auto_unroll_max_step'")
        if pragma_type == "unroll":
            return self.unroll(var)
        if pragma_type == "vectorize":
            return self.vectorize(var)
        if isinstance(pragma_value, str):
            pragma_value = StringImm(pragma_value)
        elif pragma_value is not None:
            try:
                pragma_value = convert(pragma_value)
            except TypeError:
                raise TepadError(f"stage {self.name}: pragma({var.name}, {pragma_type!r}) "
                                 f"value {pragma_value!r} is not an expression or string"
                                 ) from None
        attr = self.iter_var_attrs.setdefault(var, IterVarAttr())
        attr.pragma_keys.append(StringImm(pragma_type))
        attr.pragma_values.append(pragma_value)
        return None

    def prefetch(self, tensor, var, offset):
        """Prefetch the region of ``tensor`` that iteration ``var + offset`` of leaf ``var``
        reads, at the start of each iteration of ``var`` (TVM's ``Stage.prefetch``)."""
        self._check_compute("prefetch")
        self._leaf_index(var, "prefetch")
        if not isinstance(tensor, Tensor):
            raise TepadError(f"stage {self.name}: prefetch expects a te.Tensor to prefetch, "
                             f"got {tensor!r}")
        try:
            off = convert(offset)
        except TypeError:
            off = None
        if off is None or not dt.is_int(off.dtype):
            raise TepadError(f"stage {self.name}: prefetch({tensor.name}, {var.name}, "
                             f"{offset!r}): the offset must be an integer (iterations ahead)")
        attr = self.iter_var_attrs.setdefault(var, IterVarAttr())
        attr.prefetch_data.append(tensor)
        attr.prefetch_offset.append(off)

    def storage_align(self, axis, factor, offset):
        """Pad the storage of this stage's tensor so that the stride of dimension ``axis``
        (a root axis of the stage) is ``offset`` modulo ``factor`` (TVM's
        ``Stage.storage_align``; StorageFlatten pads the realized buffer's strides). As in
        TVM, any integer ``offset`` is taken modulo ``factor`` (``storage_align(ax, 15, 16)``
        pads to 1 modulo 15). It
        applies to buffers tepad allocates; a tensor passed as an argument keeps the
        caller's dense layout."""
        self._check_compute("storage_align")
        if not isinstance(axis, IterVar) or not any(axis is iv for iv in self.op.axis):
            names = [iv.name for iv in self.op.axis]
            raise TepadError(f"stage {self.name}: storage_align needs one of the stage's "
                             f"root data axes {names} (op.axis[k]), got {axis!r}")
        vals = []
        for what, v in (("factor", factor), ("offset", offset)):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
                raise TepadError(f"stage {self.name}: storage_align({axis.name}) {what} must "
                                 f"be an integer constant, got {v!r}")
            vals.append(int(v))
        factor, offset = vals
        if factor <= 0:
            raise TepadError(f"stage {self.name}: storage_align({axis.name}, {factor}, "
                             f"{offset}) needs factor > 0")
        if self.layout_transforms:
            raise TepadError(f"stage {self.name}: storage_align after transform_layout is not "
                             "supported (the aligned dimension is a logical axis)")
        attr = self.iter_var_attrs.setdefault(axis, IterVarAttr())
        attr.dim_align_factor, attr.dim_align_offset = factor, offset

    def transform_layout(self, mapping, pad_value=None):
        """Store this stage's tensor in a transformed (physical) layout (RFC 0039/0077).

        ``mapping`` takes one index per logical axis (or ``*idx``) and returns the physical
        indices, optionally with ``te.AXIS_SEPARATOR`` entries. ``pad_value`` fills padding
        (None: padding is never read). For a compute stage the loops follow the new layout
        and the new IterVars are returned; for a placeholder only accesses change (None).
        """
        op = self.op
        if isinstance(op, ScanOp) or self.scan_stage is not None or \
                self._scan_reading(op.output(0)) is not None:
            raise TepadError(f"stage {self.name}: transform_layout of a te.scan, its init, "
                             "update or body stages is not supported (they share the scan's "
                             "state buffer or live inside its time loop); transform the "
                             "stages that read the scan's output instead")
        if isinstance(op, TensorComputeOp):
            self._check_compute("transform_layout", tensor_compute=False)
        if isinstance(op, ComputeOp) and op.num_outputs != 1:
            raise TepadError(f"stage {self.name}: transform_layout needs a single-output stage")
        if any(a.dim_align_factor for a in self.iter_var_attrs.values()):
            raise TepadError(f"stage {self.name}: transform_layout after storage_align is not "
                             "supported (storage_align pads a logical axis)")
        if isinstance(op, ComputeOp):
            axes = self._layout_axes
            in_shape = [iv.dom.extent for iv in axes]
        else:
            axes = None
            in_shape = list(op.shape) if not self.layout_transforms else \
                list(self._layout_shape)
        if isinstance(mapping, IndexMap):
            imap, seps = mapping, []
        else:
            if not callable(mapping):
                raise TepadError(f"stage {self.name}: transform_layout expects a callable "
                                 f"mapping (lambda i, j: [...]), got {mapping!r}")
            n, varargs = IndexMap.func_arity(mapping)
            if n > len(in_shape) or (n < len(in_shape) and not varargs):
                self._layout_arity_error(n, axes, in_shape)
            imap, seps = IndexMap.from_func(mapping, len(in_shape))
        if len(imap.initial_indices) != len(in_shape):
            self._layout_arity_error(len(imap.initial_indices), axes, in_shape)
        if not imap.is_injective(in_shape):
            raise TepadError(f"stage {self.name}: the layout mapping {imap} is not injective on "
                             f"the tensor's shape {list(in_shape)}: two elements would share "
                             "one physical location")
        _check_pad_value(self, imap, pad_value)
        new_shape = imap.map_shape(in_shape)
        self.layout_transforms.append(imap)
        self.axis_separators = list(seps)
        self.pad_values.append(pad_value)
        self.pad_value = pad_value
        self._layout_shape = list(new_shape)
        if axes is None:
            return None
        pos = []
        for iv in axes:
            pos.append(self._leaf_index(iv, "transform_layout"))
        if sorted(pos) != list(range(min(pos), min(pos) + len(pos))):
            raise TepadError(f"stage {self.name}: transform_layout needs the axes "
                             f"{[iv.name for iv in axes]} to be adjacent leaves (transform "
                             "before reorder)")
        inverse = imap.inverse(in_shape)
        new_ivs = [IterVar(Range.from_min_extent(0, e), Var(f"ax{k}", e.dtype))
                   for k, e in enumerate(new_shape)]
        vsub = {v: iv.var for v, iv in zip(inverse.initial_indices, new_ivs)}
        inv_exprs = [substitute(e, vsub) for e in inverse.final_indices]
        self.relations.append(Transform(axes, new_ivs, imap, inv_exprs))
        self.all_iter_vars += new_ivs
        k0 = min(pos)
        self.leaf_iter_vars[k0:k0 + len(axes)] = new_ivs
        self._layout_axes = list(new_ivs)
        return new_ivs

    def _layout_arity_error(self, n, axes, in_shape):
        """Raise the TepadError of a layout mapping taking ``n`` indices for this tensor."""
        tensor = self.op.output(0).name
        if axes is not None:
            names = [iv.name for iv in axes]
        else:
            names = [f"i{k}" for k in range(len(in_shape))]
        shape = ", ".join(str(e) for e in in_shape)
        raise TepadError(
            f"stage {self.name}: transform_layout of tensor {tensor} (shape ({shape})): the "
            f"layout mapping takes {n} ind{'ex' if n == 1 else 'ices'} but {tensor} has "
            f"{len(in_shape)} dimensions; the mapping takes one index per dimension, e.g. "
            f"lambda {', '.join(names)}: [...]")

    def env_threads(self, threads):
        """TVM's persistent scan kernels (the scan's time loop inside one GPU launch, its
        steps separated by a grid-wide barrier) are not supported: a TepadError saying what
        to write instead."""
        raise TepadError(
            f"stage {self.name}: env_threads is not supported: it runs a scan's whole time "
            "loop inside one launch, which needs a grid-wide barrier between steps that "
            "tepad's CUDA path does not have; bind the axes of the scan's init and update "
            "stages instead (s[update].bind(xo, te.thread_axis('blockIdx.x')), ...), which "
            "launches one kernel per step")

    def set_store_predicate(self, predicate):
        """Store the stage's values only where ``predicate`` holds (TVM's
        ``set_store_predicate``): an expression of the stage's axes or loop variables,
        added to the guard of its stores (of a reduction's updates; the init runs as
        before). Bounds are not changed."""
        self._check_compute("set_store_predicate")
        pred = convert(predicate)
        if pred.dtype != "bool":
            raise TepadError(f"stage {self.name}: set_store_predicate needs a condition (a "
                             f"bool expression such as i < 5), got a {pred.dtype} expression")
        self.store_predicate = pred

    def set_axis_separators(self, axis_separators):
        """Store the stage's tensor as an N-d physical buffer split before each axis in
        ``axis_separators`` (TVM's ``set_axis_separators``): the identity layout with
        ``te.AXIS_SEPARATOR`` at those positions, through ``transform_layout``."""
        ndim = len(self.op.output(0).shape)
        seps = sorted({int(a) for a in axis_separators})
        if any(not 0 < a < ndim for a in seps):
            raise TepadError(f"stage {self.name}: axis separators {list(axis_separators)} must "
                             f"lie strictly between 0 and the tensor's {ndim} dimensions")
        if not seps:
            return None

        def mapping(*idx):
            out = []
            for k, i in enumerate(idx):
                if k in seps:
                    out.append(AXIS_SEPARATOR)
                out.append(i)
            return out
        return self.transform_layout(mapping)

    def rolling_buffer(self):
        """Make this stage's buffer circular along its rolling axis (TVM's rolling_buffer, apache/tvm #13033).

        The stage must be computed at a loop of its consumer (checked when lowering) whose
        consecutive iterations need overlapping regions of it."""
        if isinstance(self.op, PlaceholderOp):
            raise TepadError(f"stage {self.name} is a placeholder; rolling_buffer applies to "
                             "an intermediate compute stage")
        if self.is_output:
            raise TepadError(f"stage {self.name} is an output; rolling_buffer applies to an "
                             "intermediate stage computed at a loop of its consumer")
        self.is_rolling = True

    def double_buffer(self):
        """TVM's ``double_buffer``: the stage's buffer gets two halves, alternating with the
        parity of the loop it is computed at, and the write for iteration i + 1 is issued
        before the compute of iteration i (``tepad.lower.passes.inject_double_buffer``; on a
        GPU the next shared-memory tile loads while this one is used). Recorded in
        ``is_double_buffered``; a stage computed at the root is left single-buffered.
        Refused on an output (its memory is the caller's)."""
        self._check_compute("double_buffer")
        if self.is_output:
            raise TepadError(f"stage {self.name}: double_buffer on an output; it applies to "
                             "an intermediate stage's buffer (e.g. a cache_read stage)")
        self.is_double_buffered = True

    def set_scope(self, scope):
        """Set the storage scope of this stage's buffer: 'global', 'shared', 'local' or 'warp',
        optionally tagged as TVM allows ('global:pool', 'global.texture', 'shared.dyn'; a
        tagged scope is placed as its rank). Anything else is a TepadError."""
        split_storage_scope(scope, f"stage {self.name}")
        self.scope = scope

    def leaf_kind(self, iv):
        """The loop kind annotated on ``iv`` (Vectorized, Unrolled, Parallelized), or None."""
        a = self.iter_var_attrs.get(iv)
        return a.iter_type if a is not None and a.iter_type is not None else None

    # --- copying --------------------------------------------------------------------------------
    def _copy(self, schedule):
        s = Stage.__new__(Stage)
        s.__dict__.update(self.__dict__)
        s.schedule = schedule
        s.all_iter_vars = list(self.all_iter_vars)
        s.leaf_iter_vars = list(self.leaf_iter_vars)
        s.relations = list(self.relations)
        s.iter_var_attrs = {k: v.copy() for k, v in self.iter_var_attrs.items()}
        s.layout_transforms = list(self.layout_transforms)
        s.pad_values = list(self.pad_values)
        s._layout_axes = list(self._layout_axes)
        return s

    def _rebase_roots(self):
        """normalize(): replace every root axis that is still a leaf by a fresh rebased leaf."""
        if not isinstance(self.op, _LOOPED + (ScanOp,)):
            return {}
        remap = {}
        for iv in self.op.root_iter_vars:
            if iv not in self.leaf_iter_vars or iv in self.iter_var_attrs and \
                    self.iter_var_attrs[iv].bind_thread is not None:
                continue
            k = self.leaf_iter_vars.index(iv)
            nv = IterVar(None, Var(iv.name, iv.var.dtype), iv.iter_type)
            self.relations.append(Rebase(iv, nv))
            self.all_iter_vars.append(nv)
            self.leaf_iter_vars[k] = nv
            if iv in self.iter_var_attrs:
                self.iter_var_attrs[nv] = self.iter_var_attrs[iv]
            remap[iv] = nv
        return remap


def _check_pad_value(stage, imap, pad_value):
    """Reject pad values that read another tensor (RFC 0077 allows only the buffer itself)."""
    if pad_value is None or not callable(pad_value):
        expr = pad_value
    else:
        fvars = [Var(f"p{k}") for k in range(len(imap.final_indices))]
        try:
            expr = pad_value(*fvars)
        except TepadError:
            raise
        except Exception as e:   # a pad callable the user wrote: report it as such
            raise TepadError(f"stage {stage.name}: the pad_value callable failed on the "
                             f"transformed indices: {e}") from e
    if expr is None or not hasattr(expr, "dtype"):
        return
    bad = []

    def visit(n):
        if isinstance(n, ProducerLoad) and n.producer.op is not stage.op and \
                n.producer.op is not stage.origin_op:
            bad.append(n.producer.name)
        if isinstance(n, BufferLoad):
            bad.append(n.buffer.name)
    post_order_visit(expr, visit)
    if bad:
        raise TepadError(f"stage {stage.name}: pad_value reads {bad[0]}; a pad value may be a "
                         "constant, tir.undef, a function of the transformed indices, or read "
                         f"only {stage.name} itself")


__all__ = ["Stage", "AttachType", "IterVarAttr", "PlaceholderOp"]
