"""Sketch generation and annotation (TVM's sketch rules and random annotation, for CPUs).

The sketch of a DAG is decided by rules, consumers before producers:

* an injective stage (no reduction) that is not an output is inlined (``compute_inline``)
  when it is *strictly inlinable* (TVM's rule): its reads index the tensors by its own loop
  variables in order, and its body has no branch (``if_then_else``, ``Select``) and no
  expensive call (``exp``, ``log``, ``tanh``, ...). Any other injective stage (a padding, a
  softmax's ``exp``) gets a compute location from the parameters (``params["loc"][stage]``):
  ``"root"`` (its own parallel, vectorized loop nest), ``"at"`` (computed at the outer
  parallel loop of its only consumer, when that consumer is tiled) or ``"inline"``, which is
  offered only where it costs no recomputation of an expensive body: a producer with an
  expensive call is inlined only into one elementwise consumer that reads it once. The
  default is ``"inline"`` for a cheap body read fewer than 16 times per element (a depthwise
  conv's padding), else ``"at"`` (a conv's padding, read once per output channel and tap),
  else ``"root"``;
* a stage with a reduction and spatial loops gets multi-level tiling, SSRSRS: every spatial
  loop split in 4 levels, every reduction loop in 2, ordered
  ``S0 S1 R0 S2 R1 S3``. Its outer levels live in a host stage: the single consumer when that
  is an elementwise output of the same shape (the stage is computed at the consumer's S1
  loop), else a ``cache_write`` copy-out when the stage is an output (the ``.local`` stage is
  computed at the copy-out's S1 loop); otherwise the stage is tiled at the root by itself;
* every root stage fuses its outer spatial tile loops into one ``parallel`` loop, carries the
  ``auto_unroll_max_step`` pragma there, and vectorizes its innermost spatial loop; tiled
  stages vectorize their innermost S3 loop too;
* a reduction over one loop at least two vectors long whose reads reuse nothing across
  loops (a row sum or max), or at least 16 times the spatial extent (TVM's rfactor rule),
  is split in two and the inner part rfactored into a ``.rf`` stage whose last (vectorized)
  axis holds partial sums; the stage then adds them up;
* a remaining elementwise (output) stage splits its last loop, fuses the rest with the outer
  part into a parallel loop and vectorizes the inner part;
* a reduction with several outputs (an argmax's ``comm_reducer`` over ``(index, value)``)
  fuses its spatial loops into one parallel loop, each iteration reducing serially;
* an input of a tiled stage that the stage's innermost (vectorized) spatial loop walks along
  its last dimension, that a reduction loop indexes and that is reused across another spatial
  loop (``B[k, j]`` in a matmul) may be *packed* (TVM's layout rewrite with an inserted
  transform stage; the expert's ``packedB``): a ``cache_read`` copy computed at the root,
  stored by ``transform_layout`` as ``[spatial dims, j / bn, reduction dims, j % bn]`` with
  ``bn`` the register block's width (the S3 extent of ``j``), copied by a parallel loop nest
  in the input's order with the ``j % bn`` loop vectorized. The register block then streams
  ``bn`` contiguous values per reduction step instead of a row ``N`` values apart;
* the *vector axis* of a tiled stage with a ``cache_write`` or consumer host (the innermost,
  vectorized loop of its register block) is its last spatial loop, or, where that loop is a
  poor vector (not a whole number of the target's vectors, or indexing an input through a
  sliding ``x + rx``), another spatial loop that some input leaves out and that every other
  input either has as its plain last index or may be packed along: a conv's output
  channels ``f``, its weight ``W[f, c, ry, rx]`` packed as ``[f / bn, c, ry, rx, f % bn]``
  (a pack choice keyed ``"stage/input@f"``). The accumulator stage is then stored by a
  ``transform_layout`` with that loop last (its loops become ``ax0`` ..), so the block's
  vector loads and stores are contiguous; the host's copy-out still vectorizes its last
  loop, reading the block at a stride (TVM's x86 conv2d: ``NCHW[16c]`` blocking, the
  expert's ``O16``). The analytical default takes such a loop where the last loop is not
  whole vectors, the other loop is, and the packed inputs are reused 16 times or more;
* under a target with fewer than 32 vector registers, a tiled stage's last loop along which
  an input may be packed (``B[k, j]``) may take a *ragged* register-block width ``w`` (2, 3 or 4 vectors) that does not divide it: the loop
  is tiled ``[ceil(n / w), 1, 1, w]``, the last tile partial (guarded by the split) and a
  packed panel padded. 16 registers hold 4 rows x 3 vectors of accumulators (the expert's
  AVX2 block), and 3 vectors divide no power-of-two row. The analytical default takes 3
  vectors where the padding is at most 1/16 of the row and the block holds more
  accumulators than the dividing one.

The free choices are the parameters: ``params["tile"][key]`` (the extents of the levels of
each split loop, key ``"stage/loop"``, their product the loop's extent),
``params["unroll"]`` (the pragma's step budget), ``params["loc"]`` (the compute location
of each stage that is not strictly inlinable, from ``Sketch.loc_choices``) and
``params["pack"]`` (``{"stage/input": bool}``, whether each input in ``Sketch.pack_choices``
is packed; a missing entry is not packed, so states of older logs replay the same) and
``params["vec"]`` (``{"stage": loop}``, each tiled stage's vector axis from
``Sketch.vec_choices``, present where some stage has more than one; a missing entry is the
last loop) and ``params["wide"]`` (``{"stage": w}``, a ragged width from
``Sketch.wide_choices`` or 0 for none; a missing entry is 0).
``Sketch.steps(params)`` writes the state's steps; ``random_params``/``mutate`` draw and
perturb them within the target's bounds: the accumulator block (the product of the S3
extents) must fit the target's vector registers (``vector_registers`` x ``vector_lanes``).
"""
from __future__ import annotations

import copy
import math
import os
import random

from ..errors import TepadError
from ..target import Target
from ..tensor.scan import ScanOp
from ..tensor.tensor import ComputeOp, PlaceholderOp
from ..tir.expr import Call, ProducerLoad, Select
from ..tir.functor import collect_vars, post_order_visit
from .loop_state import State

UNROLL_CHOICES = [0, 16, 64, 512]


def divisors(n: int) -> list:
    return [d for d in range(1, n + 1) if n % d == 0]


def _prime_factors(n: int) -> list:
    out, p = [], 2
    while n > 1 and p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    if n > 1:
        out.append(n)
    return out


def _ext(iv) -> int:
    return int(iv.dom.extent)


def _injective(op) -> bool:
    return isinstance(op, ComputeOp) and not op.reduce_axis


def _tileable(op) -> bool:
    return isinstance(op, ComputeOp) and bool(op.reduce_axis) and bool(op.axis) and \
        len(op.body) == 1 and all(_const(iv) for iv in list(op.axis) + list(op.reduce_axis))


def _const(iv) -> bool:
    try:
        int(iv.dom.extent)
        int(iv.dom.min)
        return True
    except (TypeError, ValueError, AttributeError):
        return False


def _has_reuse(op) -> bool:
    """Does some tensor read of ``op`` leave out one of its loop variables (so that the
    value is reused across that loop, as ``A[i, k]`` across ``j`` in a matmul)?"""
    loop_vars = {iv.var for iv in list(op.axis) + list(op.reduce_axis)}
    reads = []
    post_order_visit(op.body[0], lambda n: reads.append(n) if isinstance(n, ProducerLoad)
                     else None)
    for load in reads:
        used = set()
        for idx in load.indices:
            used |= collect_vars(idx)
        if not loop_vars <= used:
            return True
    return False


EXPENSIVE_CALLS = frozenset(
    "tir." + n for n in ("exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "tanh",
                         "sigmoid", "pow", "erf", "sin", "cos", "tan", "sinh", "cosh", "asin",
                         "acos", "atan", "atan2", "atanh", "asinh", "acosh"))


def _body_facts(op) -> tuple:
    """``(has_branch, has_expensive_call, reads)`` of a compute op's body: a branch is an
    ``if_then_else`` or a ``Select``; ``reads`` are its ProducerLoads."""
    facts = {"branch": False, "expensive": False}
    reads = []

    def visit(n):
        if isinstance(n, ProducerLoad):
            reads.append(n)
        elif isinstance(n, Select):
            facts["branch"] = True
        elif isinstance(n, Call):
            name = n.op.name
            if name == "tir.if_then_else":
                facts["branch"] = True
            elif name in EXPENSIVE_CALLS:
                facts["expensive"] = True

    for b in op.body:
        post_order_visit(b, visit)
    return facts["branch"], facts["expensive"], reads


def strictly_inlinable(op) -> bool:
    """TVM's ``is_strictly_inlineable``: an injective compute whose reads index each tensor
    by a subsequence of its own loop variables (in order, none twice: no shifted, transposed
    or computed index) and whose body has no branch and no expensive call; a compute that
    reads nothing (a constant tensor) is always strictly inlinable."""
    if not _injective(op):
        return False
    branch, expensive, reads = _body_facts(op)
    if not reads:
        return True
    if branch or expensive:
        return False
    order = [iv.var for iv in op.axis]
    for load in reads:
        pos = []
        for idx in load.indices:
            if not any(idx is v for v in order):
                try:
                    int(idx)            # a constant index
                    continue
                except (TypeError, ValueError):
                    return False
            pos.append(next(i for i, v in enumerate(order) if idx is v))
        if pos != sorted(set(pos)):
            return False
    return True


def scan_parts(dag) -> set:
    """The stage names of the init and update computes of the DAG's ``te.scan`` operations:
    the scan runs them in its time loop, so no rule inlines or moves them."""
    return {dag.name_of(t.op) for op in dag.ops if isinstance(op, ScanOp)
            for t in list(op.init) + list(op.update)}


def _reads_of(op, producer) -> int:
    """How many loads of ``producer``'s output the body of ``op`` holds."""
    return sum(1 for r in _body_facts(op)[2] if r.producer.op is producer)


def _same_shape(a, b) -> bool:
    return [_ext(iv) for iv in a.axis] == [_ext(iv) for iv in b.axis]



def mutate_tiles(params, rng: random.Random, tile_keys, ok, unroll_choices) -> dict:
    """A copy of ``params`` (``{"tile": {key: levels}, "unroll": n}``) with one prime factor
    moved between two levels of one split, kept only where ``ok(tile)`` holds (20 tries), or,
    one time in five, another unroll budget from ``unroll_choices``."""
    p = copy.deepcopy(params)
    if rng.random() < 0.2 or not tile_keys:
        p["unroll"] = rng.choice(unroll_choices)
        return p
    for _ in range(20):
        key = rng.choice(sorted(tile_keys))
        lv = p["tile"][key]
        src = [i for i, e in enumerate(lv) if e > 1]
        if not src or len(lv) < 2:
            continue
        a = rng.choice(src)
        b = rng.choice([i for i in range(len(lv)) if i != a])
        f = rng.choice(_prime_factors(lv[a]))
        new = list(lv)
        new[a] //= f
        new[b] *= f
        trial = dict(p["tile"], **{key: new})
        if ok(trial):
            p["tile"] = trial
            return p
    return p


def crossover_tiles(a, b, rng: random.Random, tile_keys, ok):
    """A child taking each split loop's tile levels and the unroll budget from ``a`` or ``b``
    at random; None when ``ok`` refuses its tiles."""
    tile = {k: list((a if rng.random() < 0.5 else b)["tile"][k]) for k in tile_keys}
    child = {"tile": tile, "unroll": (a if rng.random() < 0.5 else b)["unroll"]}
    return child if ok(tile) else None


class Sketch:
    """The rule-made structure of one DAG's programs for ``target`` (see the module
    docstring); ``plan`` lists ``(kind, stage, extra)`` in the order their steps go."""

    def __init__(self, dag, target=None):
        self.dag = dag
        self.target = Target.canon_target(target) or Target("llvm")
        dtype = dag.output_ops[0].output(0).dtype
        self.lanes = self.target.vector_lanes(dtype)
        self.regs = self.target.vector_registers
        self.cores = os.cpu_count() or 1
        self.plan = []
        self.tile_keys = {}             # key -> (extent, levels)
        self.loc_choices = {}           # stage -> its compute locations, the default first
        self.attach = {}                # tiled stage -> (host stage, its outer parallel loop)
        self.pack_choices = {}          # "stage/input(@axis)" -> what packing that input needs
        self.vec_choices = {}           # tiled stage -> its vector axes, the last loop first
        self.wide_choices = {}          # tiled stage -> ragged register-block widths
        host_of = {}
        for op in dag.compute_ops:
            cons = dag.consumers[dag.name_of(op)]
            if _tileable(op) and not dag.is_output(op) and len(cons) == 1 and \
                    dag.is_output(cons[0]) and _injective(cons[0]) and \
                    _same_shape(op, cons[0]) and dag.name_of(cons[0]) not in host_of.values():
                host_of[dag.name_of(op)] = dag.name_of(cons[0])
        hosted = {v: k for k, v in host_of.items()}
        in_scan = scan_parts(dag)
        for op in reversed(dag.compute_ops):
            name = dag.name_of(op)
            if name in host_of or name in in_scan:
                continue                        # tiled with its host; run by its scan
            if name in hosted:
                self._add_tiled(op, dag.op_by_name[hosted[name]], "fuse")
            elif _injective(op) and not dag.is_output(op):
                if strictly_inlinable(op):
                    self.plan.append(("inline", name, None))
                else:
                    self.loc_choices[name] = self._locations(op)
                    if op.axis and all(_const(iv) for iv in op.axis):
                        last = op.axis[-1].var.name
                        self.tile_keys[f"{name}/{last}"] = (_ext(op.axis[-1]), 2)
                    self.plan.append(("flex", name, None))
            elif self._needs_rfactor(op):
                k = op.reduce_axis[0]
                self.tile_keys[f"{name}/{k.var.name}"] = (_ext(k), 2)
                self.plan.append(("rfactor", name, None))
            elif _tileable(op):
                self._add_tiled(op, op, "cache" if dag.is_output(op) else "plain")
            elif _injective(op) and op.axis and all(_const(iv) for iv in op.axis):
                last = op.axis[-1].var.name
                self.tile_keys[f"{name}/{last}"] = (_ext(op.axis[-1]), 2)
                self.plan.append(("simple", name, None))
            elif isinstance(op, ComputeOp) and len(op.body) > 1 and op.reduce_axis and \
                    op.axis and all(_const(iv) for iv in op.axis):
                self.plan.append(("tuple", name, None))
            # anything else (scans, symbolic shapes, full reductions) keeps the default
        shared = {}
        for info in self.pack_choices.values():
            shared.setdefault(info["tensor"], set()).add(info["stage"])
        for info in self.pack_choices.values():
            info["name"] = f"{info['tensor']}.pack" if len(shared[info["tensor"]]) == 1 else \
                f"{info['tensor']}.pack.{info['stage']}"

    def _locations(self, op) -> list:
        """The compute locations of an injective stage that is not strictly inlinable, the
        default first: ``"at"`` the outer parallel loop of its only consumer when that
        consumer is tiled (a padding next to the tiles that read it), ``"root"``, and
        ``"inline"`` unless that would compute an expensive body more than once per element
        (more than one consumer or read, a reduction or inlined consumer)."""
        cons = self.dag.consumers[self.dag.name_of(op)]
        _, expensive, _ = _body_facts(op)
        out = []
        if len(cons) == 1 and self.dag.name_of(cons[0]) in self.attach:
            out.append("at")
        if op.axis and all(_const(iv) for iv in op.axis):
            out.append("root")
        cheap_once = len(cons) == 1 and _injective(cons[0]) and \
            _reads_of(cons[0], op) == 1 and \
            (self.dag.is_output(cons[0]) or not strictly_inlinable(cons[0]))
        if not expensive or cheap_once:
            # a cheap body read a few times per element (a depthwise conv's padding) costs
            # less recomputed than stored and loaded again: inline it by default
            if cheap_once or (not expensive and self._reads_per_element(op) < 16):
                out.insert(0, "inline")
            else:
                out.append("inline")
        return out or ["inline"]

    def _reads_per_element(self, op) -> float:
        """How many times the consumers' loops read each element of ``op`` (their iterations
        times their reads of it, over its size); inf where an extent is not constant."""
        size = 1
        for iv in op.axis:
            if not _const(iv):
                return float("inf")
            size *= _ext(iv)
        reads = 0
        for c in self.dag.consumers[self.dag.name_of(op)]:
            if not isinstance(c, ComputeOp):
                return float("inf")             # read by a scan
            ivs = list(c.axis) + list(getattr(c, "reduce_axis", []))
            if not all(_const(iv) for iv in ivs):
                return float("inf")
            reads += math.prod(_ext(iv) for iv in ivs) * _reads_of(c, op)
        return reads / max(1, size)

    def _needs_rfactor(self, op) -> bool:
        """TVM's rfactor rule for one reduction loop at least two vectors long: when no
        input is reused across loops (a row sum or max: nothing for multi-level tiling to
        keep in registers), or when the reduction is at least 16 times the spatial extent."""
        if not (isinstance(op, ComputeOp) and len(op.reduce_axis) == 1 and len(op.body) == 1
                and all(_const(iv) for iv in list(op.axis) + list(op.reduce_axis))):
            return False
        space = math.prod(_ext(iv) for iv in op.axis)
        red = _ext(op.reduce_axis[0])
        if red < 2 * self.lanes:
            return False
        return red >= 16 * space or not _has_reuse(op)

    def _add_tiled(self, host, tiled, mode):
        tname, hname = self.dag.name_of(tiled), self.dag.name_of(host)
        if mode == "plain":
            self.attach[tname] = (tname, "@".join(f"{iv.var.name}.0" for iv in tiled.axis))
        else:                   # the host: the stage itself (its copy-out) or its consumer
            self.attach[tname] = (hname, "@".join(f"{iv.var.name}.0" for iv in host.axis))
        for iv in tiled.axis:
            self.tile_keys[f"{tname}/{iv.var.name}"] = (_ext(iv), 4)
        for iv in tiled.reduce_axis:
            self.tile_keys[f"{tname}/{iv.var.name}"] = (_ext(iv), 2)
        self._add_packs(tiled)
        self.vec_choices[tname] = [tiled.axis[-1].var.name] + \
            (self._other_vector_axes(tiled) if mode != "plain" else [])
        for key in [k for k, info in self.pack_choices.items() if info["stage"] == tname and
                    info["axis"] not in self.vec_choices[tname]]:
            del self.pack_choices[key]
        n = _ext(tiled.axis[-1])
        if self.regs < 32 and len(tiled.axis) > 1 and \
                any(info["stage"] == tname and info["axis"] == tiled.axis[-1].var.name
                    for info in self.pack_choices.values()):
            # 16 registers hold 4 rows x 3 vectors of accumulators, and 3 vectors divide no
            # power-of-two row: offer register blocks whose width does not divide the row
            # where an input may be packed along it (its panels padded to whole blocks)
            self.wide_choices[tname] = [k * self.lanes for k in (2, 3, 4)
                                        if k * self.lanes < n and n % (k * self.lanes)]
            if not self.wide_choices[tname]:
                del self.wide_choices[tname]
        self.plan.append(("tiled", tname, (hname, mode)))

    def _add_packs(self, op):
        """Record in ``pack_choices`` each input of the tiled stage ``op`` that packing
        suits (see the module docstring): a placeholder read once, indexed by distinct loop
        variables, one of them the vector axis, some index a reduction loop, and some
        spatial loop left out (the reuse that pays for the copy). For the stage's last loop
        (key ``"stage/input"``) the input's last index must be that loop (``B[k, j]``); for
        another spatial loop ``a`` (key ``"stage/input@a"``, used when ``a`` is the stage's
        vector axis) ``a`` may index any dimension (a conv's ``W[f, rc, ry, rx]`` for the
        output channels ``f``)."""
        name = self.dag.name_of(op)
        sp = [iv.var for iv in op.axis]
        rd = [iv.var for iv in op.reduce_axis]
        reads = _body_facts(op)[2]
        for load in reads:
            prod = load.producer.op
            if not isinstance(prod, PlaceholderOp) or \
                    sum(1 for r in reads if r.producer.op is prod) != 1:
                continue
            used = []
            for idx in load.indices:
                v = next((v for v in sp + rd if idx is v), None)
                if v is None or any(v is u for u in used):
                    break
                used.append(v)
            else:
                if not used or not any(any(v is r for r in rd) for v in used):
                    continue
                left_out = [iv for iv in op.axis if not any(iv.var is u for u in used)]
                if not left_out:
                    continue
                for k, iv in enumerate(op.axis):
                    dim = next((d for d, u in enumerate(used) if u is iv.var), None)
                    last_loop = k == len(op.axis) - 1
                    if dim is None or (last_loop and dim != len(used) - 1) or \
                            _ext(iv) < 2 and not last_loop:
                        continue
                    key = f"{name}/{self.dag.name_of(prod)}"
                    if not last_loop:
                        key += f"@{iv.var.name}"
                    self.pack_choices[key] = {
                        "stage": name, "tensor": self.dag.name_of(prod), "last": dim,
                        "axis": iv.var.name,
                        "sp_dims": [d for d, v in enumerate(used)
                                    if d != dim and any(v is u for u in sp)],
                        "rd_dims": [d for d, v in enumerate(used) if any(v is r for r in rd)],
                        "reuse": math.prod(_ext(iv) for iv in left_out),
                        "extent": _ext(iv), "moves": dim != len(used) - 1}

    def _other_vector_axes(self, op) -> list:
        """The spatial loops of the tiled stage ``op``, besides its last, that may be the
        innermost (vectorized) loop of its register block, offered where the last loop is
        a poor vector axis: its extent is not a whole number of the target's vectors, or
        some input is indexed by it through an expression (a conv's sliding ``x + rx``,
        whose vectors overlap and are unaligned). A loop qualifies when every input read
        that indexes it either has it as its plain last index (contiguous) or has a pack
        choice for it (stored with the loop last), and some read leaves it out (a
        broadcast operand: the output channels of a conv, which its data leaves out)."""
        name = self.dag.name_of(op)
        reads = _body_facts(op)[2]
        last = op.axis[-1].var
        sliding = any(last in collect_vars(idx) and idx is not last
                      for r in reads for idx in r.indices)
        if _ext(op.axis[-1]) % self.lanes == 0 and not sliding:
            return []
        out = []
        for iv in op.axis[:-1]:
            if _ext(iv) < 2:
                continue
            ok, left_out = True, False
            for r in reads:
                dims = [d for d, idx in enumerate(r.indices) if iv.var in collect_vars(idx)]
                if not dims:
                    left_out = True
                elif not (dims == [len(r.indices) - 1] and r.indices[-1] is iv.var) and \
                        f"{name}/{self.dag.name_of(r.producer.op)}@{iv.var.name}" \
                        not in self.pack_choices:
                    ok = False
            if ok and left_out:
                out.append(iv.var.name)
        return out

    # --- steps ------------------------------------------------------------------------------
    def effective_tile(self, params) -> dict:
        """``params["tile"]`` with each ragged register-block width (``params["wide"]``: a
        tiled stage whose vector axis is its last loop gets ``[ceil(n / w), 1, 1, w]`` for
        that loop, the last tile partial) in place of the loop's levels."""
        tile = params["tile"]
        wide = {n: int(w) for n, w in params.get("wide", {}).items() if w}
        if not wide:
            return tile
        tile = dict(tile)
        for name, w in sorted(wide.items()):
            if w not in self.wide_choices.get(name, []):
                raise TepadError(f"sketch parameters: stage {name!r} has no ragged width "
                                 f"{w}; its widths are {self.wide_choices.get(name, [])}")
            op = self.dag.op_by_name[name]
            last = op.axis[-1].var.name
            if self.vector_axis(name, params) == last:
                tile[f"{name}/{last}"] = [-(-_ext(op.axis[-1]) // w), 1, 1, w]
        return tile

    def steps(self, params) -> list:
        tile, unroll = self.effective_tile(params), int(params.get("unroll", 0))
        out = [["SKETCH", params]]
        for kind, name, extra in self.plan:
            op = self.dag.op_by_name[name]
            if kind == "inline":
                out.append(["CI", name])
            elif kind == "flex":
                loc = params.get("loc", {}).get(name, self.loc_choices[name][0])
                if loc not in self.loc_choices[name]:
                    raise TepadError(f"sketch parameters: stage {name!r} has no compute "
                                     f"location {loc!r}; its locations are "
                                     f"{self.loc_choices[name]}")
                if loc == "inline":
                    out.append(["CI", name])
                elif loc == "at":
                    cons = self.dag.name_of(self.dag.consumers[name][0])
                    out.append(["CA", name] + list(self.attach[cons]))
                elif f"{name}/{op.axis[-1].var.name}" in self.tile_keys:
                    out.extend(self._simple_steps(op, tile))
            elif kind == "simple":
                out.extend(self._simple_steps(op, tile))
            elif kind == "tuple":
                axes = [iv.var.name for iv in op.axis]
                if len(axes) > 1:
                    out.append(["FU", name, axes])
                out.append(["AN", name, "@".join(axes), "parallel"])
            elif kind == "rfactor":
                out.extend(self._rfactor_steps(op, tile))
            else:
                out.extend(self._tiled_steps(op, extra[0], extra[1], tile, unroll,
                                             params.get("pack", {}),
                                             self.vector_axis(name, params)))
        return out

    def pack_layout(self, key, bn) -> tuple:
        """``(layout, loop order)`` of packing ``key`` with panels ``bn`` wide: the ``TL``
        step's physical dimensions and the copy's loops in the input's order (the ``%``
        part last)."""
        info = self.pack_choices[key]
        last = info["last"]
        layout = [str(d) for d in info["sp_dims"] if d < last] + [f"{last}/{bn}"] + \
            [str(d) for d in info["sp_dims"] if d > last] + \
            [str(d) for d in info["rd_dims"]] + [f"{last}%{bn}"]

        def rank(k):
            text = layout[k]
            return (1, 0) if "%" in text else (0, int(text.split("/")[0]))
        order = [f"ax{k}" for k in sorted(range(len(layout)), key=rank)]
        return layout, order

    def vector_axis(self, name, params) -> str:
        """The vector axis of tiled stage ``name`` under ``params`` (``params["vec"]``; a
        missing entry is the stage's last loop, so states of older logs replay the same)."""
        choices = self.vec_choices[name]
        vec = params.get("vec", {}).get(name, choices[0])
        if vec not in choices:
            raise TepadError(f"sketch parameters: stage {name!r} has no vector axis {vec!r}; "
                             f"its vector axes are {choices}")
        return vec

    def _pack_steps(self, name, reader, packs, lv, vec) -> list:
        out = []
        for key, info in sorted(self.pack_choices.items()):
            if info["stage"] != name or info["axis"] != vec or not packs.get(key):
                continue
            bn = lv[vec][3]
            layout, order = self.pack_layout(key, bn)
            pk = info["name"]
            out += [["CHR", info["tensor"], "global", [reader], pk],
                    ["TL", pk, layout],
                    ["RE", pk, order]]
            if len(order) > 2:
                out.append(["FU", pk, order[:-1]])
            out.append(["AN", pk, "@".join(order[:-1]), "parallel"])
            out.append(["AN", pk, order[-1], "vectorize"])
        return out

    def _simple_steps(self, op, tile) -> list:
        """Split the last loop, fuse the others with its outer part into one parallel loop
        and vectorize the inner part."""
        name = self.dag.name_of(op)
        axes = [iv.var.name for iv in op.axis]
        last = axes[-1]
        outer = axes[:-1] + [f"{last}.0"]
        return [["SP", name, last, [tile[f"{name}/{last}"][1]]],
                ["FU", name, outer],
                ["AN", name, "@".join(outer), "parallel"],
                ["AN", name, f"{last}.1", "vectorize"]]

    def _rfactor_steps(self, op, tile) -> list:
        """Split the reduction (``k.0`` outer, ``k.1`` inner), rfactor ``k.1`` into the
        last axis of a ``.rf`` stage that sums over ``k.0`` with ``k.1`` vectorized; the
        stage then sums the ``k.1`` partial sums. Spatial loops are fused and parallel."""
        name = self.dag.name_of(op)
        sp = [iv.var.name for iv in op.axis]
        k = op.reduce_axis[0].var.name
        rf = f"{name}.rf"
        out = [["SP", name, k, [tile[f"{name}/{k}"][1]]],
               ["RF", name, f"{k}.1", len(sp)],
               ["RE", rf, sp + [f"{k}.0", f"{k}.1"]]]
        if sp:
            out.append(["FU", rf, sp])
            out.append(["AN", rf, "@".join(sp), "parallel"])
            out.append(["FU", name, sp])
            out.append(["AN", name, "@".join(sp), "parallel"])
        out.append(["AN", rf, f"{k}.1", "vectorize"])
        return out

    def _tiled_steps(self, op, host_name, mode, tile, unroll, packs, vec) -> list:
        name = self.dag.name_of(op)
        sp = [iv.var.name for iv in op.axis]
        rd = [iv.var.name for iv in op.reduce_axis]
        lv = {a: tile[f"{name}/{a}"] for a in sp + rd}
        out = []
        if mode == "plain":
            out += self._pack_steps(name, name, packs, lv, vec)
            for a in sp:
                out.append(["SP", name, a, lv[a][1:]])
            for a in rd:
                out.append(["SP", name, a, lv[a][1:]])
            order = [f"{a}.0" for a in sp] + [f"{a}.1" for a in sp] + [f"{a}.0" for a in rd] \
                + [f"{a}.2" for a in sp] + [f"{a}.1" for a in rd] + [f"{a}.3" for a in sp]
            out.append(["RE", name, order])
            outer = [f"{a}.0" for a in sp]
            out.append(["FU", name, outer])
            out.append(["AN", name, "@".join(outer), "parallel"])
            if unroll:
                out.append(["PR", name, "@".join(outer), "auto_unroll_max_step", unroll])
            out.append(["AN", name, f"{sp[-1]}.3", "vectorize"])
            return out
        if mode == "cache":
            out.append(["CHW", name, "local"])
            host, inner = name, f"{name}.local"
            host_axes = sp
        else:
            host, inner = host_name, name
            host_axes = [iv.var.name for iv in self.dag.op_by_name[host_name].axis]
        out += self._pack_steps(name, inner, packs, lv, vec)
        loops = {a: a for a in sp}
        if vec != sp[-1]:
            # store the accumulator block with the vector axis last (a transform_layout of
            # the inner stage), so that its vector loads and stores are contiguous
            phys = [a for a in sp if a != vec] + [vec]
            out.append(["TL", inner, [str(sp.index(a)) for a in phys]])
            loops = {a: f"ax{phys.index(a)}" for a in sp}
        for h, a in zip(host_axes, sp):
            out.append(["SP", host, h, [lv[a][1], lv[a][2] * lv[a][3]]])
        order = [f"{h}.{k}" for k in range(3) for h in host_axes]
        out.append(["RE", host, order])
        outer = [f"{h}.0" for h in host_axes]
        out.append(["FU", host, outer])
        out.append(["AN", host, "@".join(outer), "parallel"])
        if unroll:
            out.append(["PR", host, "@".join(outer), "auto_unroll_max_step", unroll])
        out.append(["AN", host, f"{host_axes[-1]}.2", "vectorize"])
        out.append(["CA", inner, host, f"{host_axes[-1]}.1"])
        for a in sp:
            out.append(["SP", inner, loops[a], [lv[a][3]]])
        for a in rd:
            out.append(["SP", inner, a, [lv[a][1]]])
        block = [loops[a] for a in sp if a != vec] + [loops[vec]]
        order = [f"{a}.0" for a in rd] + [f"{a}.0" for a in block] + [f"{a}.1" for a in rd] + \
            [f"{a}.1" for a in block]
        out.append(["RE", inner, order])
        out.append(["AN", inner, f"{loops[vec]}.1", "vectorize"])
        return out

    def state(self, params) -> State:
        return State(self.steps(params), params)

    # --- parameters -------------------------------------------------------------------------
    def _register_ok(self, tile, params=None) -> bool:
        """Whether every tiled stage's accumulator block (its S3 extents, a ragged width of
        ``params`` in place) fits the target's vector registers."""
        if params is not None:
            tile = self.effective_tile(dict(params, tile=tile))
        for kind, name, _ in self.plan:
            if kind != "tiled":
                continue
            op = self.dag.op_by_name[name]
            block = 1
            for iv in op.axis:
                block *= tile[f"{name}/{iv.var.name}"][3]
            if block > self.regs * self.lanes:
                return False
        return True

    def random_params(self, rng: random.Random) -> dict:
        for _ in range(50):
            tile = {}
            for key, (extent, levels) in self.tile_keys.items():
                rest, inner = extent, []
                for _ in range(levels - 1):
                    d = rng.choice(divisors(rest))
                    inner.append(d)
                    rest //= d
                tile[key] = [rest] + inner[::-1]
            if self._register_ok(tile):
                break
        else:
            return self.default_params()
        p = {"tile": tile, "unroll": rng.choice(UNROLL_CHOICES),
             "loc": {n: rng.choice(c) for n, c in sorted(self.loc_choices.items())}}
        if self.pack_choices:
            p["pack"] = {k: rng.choice([False, True]) for k in sorted(self.pack_choices)}
        if self._vec_movable():
            p["vec"] = {n: rng.choice(c) for n, c in sorted(self.vec_choices.items())}
        if self.wide_choices:
            p["wide"] = {n: rng.choice([0] + c) for n, c in sorted(self.wide_choices.items())}
            if not self._register_ok(tile, p):
                p["wide"] = {n: 0 for n in p["wide"]}
        return p

    def _wide(self, params) -> dict:
        return {n: int(params.get("wide", {}).get(n, 0)) for n in self.wide_choices}

    def _vec_movable(self) -> list:
        return sorted(n for n, c in self.vec_choices.items() if len(c) > 1)

    def _vec(self, params) -> dict:
        return {n: self.vector_axis(n, params) for n in self.vec_choices}

    def _loc(self, params) -> dict:
        return {n: params.get("loc", {}).get(n, c[0]) for n, c in self.loc_choices.items()}

    def _pack(self, params) -> dict:
        return {k: bool(params.get("pack", {}).get(k, False)) for k in self.pack_choices}

    def mutate(self, params, rng: random.Random) -> dict:
        """A copy of ``params`` with one prime factor moved between two levels of one split
        (or, one time in five, another unroll budget; one time in six, where some stage has
        several compute locations, another location for one of them; one time in six, where
        some input may be packed, that input's packing flipped; one time in six, where some
        tiled stage has several vector axes, another vector axis for it)."""
        movable_vec = self._vec_movable()
        if self.wide_choices and rng.random() < 1 / 6:
            p = copy.deepcopy(params)
            p["wide"] = self._wide(params)
            n = rng.choice(sorted(self.wide_choices))
            p["wide"][n] = rng.choice([w for w in [0] + self.wide_choices[n]
                                       if w != p["wide"][n]])
            if self._register_ok(p["tile"], p):
                return p
        if movable_vec and rng.random() < 1 / 6:
            p = copy.deepcopy(params)
            p["vec"] = self._vec(params)
            n = rng.choice(movable_vec)
            p["vec"][n] = rng.choice([c for c in self.vec_choices[n] if c != p["vec"][n]])
            if self.pack_choices:
                p["pack"] = self._pack(params)
            return p
        if self.pack_choices and rng.random() < 1 / 6:
            p = copy.deepcopy(params)
            p["pack"] = self._pack(params)
            k = rng.choice(sorted(self.pack_choices))
            p["pack"][k] = not p["pack"][k]
            return p
        movable = sorted(n for n, c in self.loc_choices.items() if len(c) > 1)
        if movable and rng.random() < 1 / 6:
            p = copy.deepcopy(params)
            p["loc"] = self._loc(params)
            n = rng.choice(movable)
            p["loc"][n] = rng.choice([c for c in self.loc_choices[n] if c != p["loc"][n]])
            return p
        p = mutate_tiles(params, rng, self.tile_keys,
                         lambda t: self._register_ok(t, params), UNROLL_CHOICES)
        if self.loc_choices:
            p["loc"] = self._loc(params)
        if self.pack_choices:
            p["pack"] = self._pack(params)
        if movable_vec:
            p["vec"] = self._vec(params)
        if self.wide_choices:
            p["wide"] = self._wide(params)
        return p

    def crossover(self, a, b, rng: random.Random):
        """A child taking each split loop's tile levels, each stage's compute location and
        the unroll budget from ``a`` or ``b`` at random; None when the child breaks the
        register bound."""
        child = crossover_tiles(a, b, rng, self.tile_keys, self._register_ok)
        if child is not None and self.loc_choices:
            la, lb = self._loc(a), self._loc(b)
            child["loc"] = {n: (la if rng.random() < 0.5 else lb)[n] for n in sorted(la)}
        if child is not None and self.pack_choices:
            pa, pb = self._pack(a), self._pack(b)
            child["pack"] = {k: (pa if rng.random() < 0.5 else pb)[k] for k in sorted(pa)}
        if child is not None and self._vec_movable():
            va, vb = self._vec(a), self._vec(b)
            child["vec"] = {n: (va if rng.random() < 0.5 else vb)[n] for n in sorted(va)}
        if child is not None and self.wide_choices:
            wa, wb = self._wide(a), self._wide(b)
            child["wide"] = {n: (wa if rng.random() < 0.5 else wb)[n] for n in sorted(wa)}
            if not self._register_ok(child["tile"], child):
                child["wide"] = {n: 0 for n in wa}
        return child

    def default_params(self) -> dict:
        """Analytical tile sizes from the target: the innermost spatial tile is two whole
        vectors (``vector_lanes``) or one where they divide the extent (else a power of two
        below a vector), the next one at most 8 and within the remaining vector registers;
        8-wide inner reduction tiles; the rest goes to the parallel outer loops. The vector
        axis is the last loop unless ``_default_vector_axis`` finds a better one."""
        tile, vec, wide = {}, {}, {}
        for kind, name, _ in self.plan:
            op = self.dag.op_by_name[name]
            if kind == "rfactor":
                key = f"{name}/{op.reduce_axis[0].var.name}"
                n = self.tile_keys[key][0]
                v = _largest_divisor(n, 2 * self.lanes)
                tile[key] = [n // v, v]
            elif kind in ("simple", "flex"):
                key = f"{name}/{op.axis[-1].var.name}" if op.axis else None
                if key not in self.tile_keys:
                    continue
                n = self.tile_keys[key][0]
                v = _largest_divisor(n, self.lanes)
                tile[key] = [n // v, v]
            elif kind == "tiled":
                sp = [iv.var.name for iv in op.axis]
                budget = budget_all = max(1, self.regs - 4)
                vec[name] = self._default_vector_axis(op)
                second = _reuse_axis(op, vec[name])
                for i, a in enumerate([vec[name]] + [a for a in reversed(sp)
                                                     if a != vec[name]]):
                    n = self.tile_keys[f"{name}/{a}"][0]
                    if i == 0:
                        e3 = _vector_tile(n, self.lanes)
                        if e3 == 2 * self.lanes and second is not None:
                            # one vector where that leaves room for a block of more
                            # accumulators (a 14-pixel row: 1 x 7 beats 2 x 2 in 12)
                            m = self.tile_keys[f"{name}/{second}"][0]
                            acc = [v * _largest_divisor(m, min(budget // v, 8)) for v in (1, 2)]
                            if acc[0] > acc[1]:
                                e3 = self.lanes
                        budget = max(1, budget // max(1, -(-e3 // self.lanes)))
                        e1 = _largest_divisor(n // e3, max(1, 64 // e3))
                    elif a == second:
                        e3 = _largest_divisor(n, min(budget, 8))
                        e1 = _largest_divisor(n // e3, 4)
                    else:
                        e3, e1 = 1, 1
                    tile[f"{name}/{a}"] = [n // (e1 * e3), e1, 1, e3]
                w = self._default_wide(op, vec[name], second, tile)
                if w:
                    wide[name] = w
                    m = self.tile_keys[f"{name}/{second}"][0]
                    r3 = _largest_divisor(m, min(budget_all // 3, 8))
                    r1 = _largest_divisor(m // r3, 4)
                    tile[f"{name}/{second}"] = [m // (r1 * r3), r1, 1, r3]
                # keep enough outer tiles for every core: shrink the cache tiles (level 1),
                # outermost loops first
                keys = [f"{name}/{a}" for a in sp]
                for key in keys:
                    while math.prod(tile[k][0] for k in keys) < self.cores and tile[key][1] > 1:
                        f = _prime_factors(tile[key][1])[0]
                        tile[key][1] //= f
                        tile[key][0] *= f
                rd = [iv.var.name for iv in op.reduce_axis]
                for i, a in enumerate(rd):
                    n = self.tile_keys[f"{name}/{a}"][0]
                    r1 = _largest_divisor(n, 8) if i == len(rd) - 1 else n
                    tile[f"{name}/{a}"] = [n // r1, r1]
        p = {"tile": tile, "unroll": 64,
             "loc": {n: c[0] for n, c in sorted(self.loc_choices.items())}}
        if self._vec_movable():
            p["vec"] = {n: vec[n] for n in sorted(self.vec_choices)}
        if self.wide_choices:
            p["wide"] = {n: wide.get(n, 0) for n in sorted(self.wide_choices)}
        if self.pack_choices:
            eff = self.effective_tile(p)
            p["pack"] = {k: self.pack_choices[k]["axis"] == vec[self.pack_choices[k]["stage"]]
                         and self._pack_pays(k, eff) for k in sorted(self.pack_choices)}
        return p

    def _default_wide(self, op, vec, second, tile) -> int:
        """The analytical ragged width of a tiled stage: three vectors (under 16 registers,
        4 rows x 3 vectors of accumulators, the expert's block) where that is a width choice
        of its last loop, the last loop is the vector axis, the partial last tile wastes at
        most 1/16 of the row, and the block holds more accumulators than the dividing one."""
        name = self.dag.name_of(op)
        w = 3 * self.lanes
        last = op.axis[-1].var.name
        if w not in self.wide_choices.get(name, []) or vec != last or second is None:
            return 0
        n = _ext(op.axis[-1])
        if (-(-n // w) * w - n) * 16 > n:
            return 0
        m = self.tile_keys[f"{name}/{second}"][0]
        r3 = _largest_divisor(m, min(max(1, self.regs - 4) // 3, 8))
        now = -(-tile[f"{name}/{last}"][3] // self.lanes) * tile[f"{name}/{second}"][3]
        return w if 3 * r3 > now else 0

    def _default_vector_axis(self, op) -> str:
        """The analytical vector axis of a tiled stage: its last loop, unless that loop is
        not a whole number of the target's vectors while another vector-axis choice is
        (a conv's 14-pixel rows against its 32 output channels under 16 lanes) and every
        input the choice must pack is reused enough to pay for the copy (``_pack_pays``
        with a panel of one vector); then the longest such loop."""
        name = self.dag.name_of(op)
        choices = self.vec_choices[name]
        if _ext(op.axis[-1]) % self.lanes == 0:
            return choices[0]
        best = choices[0]
        for a in choices[1:]:
            n = self.tile_keys[f"{name}/{a}"][0]
            if n % self.lanes:
                continue
            keys = [k for k, info in self.pack_choices.items()
                    if info["stage"] == name and info["axis"] == a]
            probe = {f"{name}/{a}": [1, 1, 1, self.lanes]}
            if all(self._pack_pays(k, probe) for k in keys) and \
                    (best == choices[0] or n > self.tile_keys[f"{name}/{best}"][0]):
                best = a
        return best

    def _pack_pays(self, key, tile) -> bool:
        """The analytical choice: pack where the copy is a small part of the work (the
        input is reused across at least 16 iterations of the loops its read leaves out) and
        changes the layout (the panel, at least two lanes wide, is narrower than the row)."""
        info = self.pack_choices[key]
        bn = tile[f"{info['stage']}/{info['axis']}"][3]
        return info["reuse"] >= 16 and 2 <= bn and (bn < info["extent"] or info["moves"])


def _reuse_axis(op, vec=None):
    """The spatial loop (not ``vec``, default the last) that the accumulator block spans
    besides ``vec``:
    the longest one that some input read leaves out (so that read is reused across it, as
    the data of a conv across output channels or ``B[k, j]`` across ``i`` in a matmul);
    without such a loop, the one before the last. None for a one-loop stage."""
    vec = vec or op.axis[-1].var.name
    sp = list(op.axis)
    if len(sp) < 2:
        return None
    reads = _body_facts(op)[2]
    best = None
    rest = [iv for iv in sp if iv.var.name != vec]
    for iv in rest:
        left_out = any(not any(iv.var in collect_vars(i) for i in r.indices) for r in reads)
        if left_out and _ext(iv) > 1 and (best is None or _ext(iv) >= _ext(best)):
            best = iv
    return (best or rest[-1]).var.name


def _vector_tile(n: int, lanes: int) -> int:
    """The innermost tile of an extent ``n``: whole vectors (two if they divide ``n``, else
    one); an extent shorter than a vector whole (one short vector beats a tile of a few
    lanes); else the largest power-of-two divisor up to a vector."""
    for d in (2 * lanes, lanes):
        if n % d == 0:
            return d
    if n <= lanes:
        return n
    p = 1
    while n % (2 * p) == 0 and 2 * p <= lanes:
        p *= 2
    return p


def _largest_divisor(n: int, cap: int) -> int:
    return max(d for d in divisors(n) if d <= max(1, cap))

