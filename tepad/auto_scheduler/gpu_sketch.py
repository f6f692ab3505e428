"""Sketch generation and annotation for GPU targets (TVM's GPU sketch rules).

The rules, consumers before producers:

* an injective stage that is not an output is inlined (``compute_inline``);
* a stage with a reduction and spatial loops gets multi-level tiling, SSSRRSRS: every spatial
  loop split in 5 levels (block, virtual thread, thread, then two inner levels), every
  reduction loop in 3. Its accumulator is a ``cache_write`` to ``"local"``. The outer three
  spatial levels live in a host stage: the output at the end of a chain of elementwise
  stages of the same shape when there is one (the copy-out of the cache is inlined into it;
  TVM's fusion of consumers), else the copy-out itself. In the host each level's loops are
  fused and bound to ``blockIdx.x``, ``vthread`` and ``threadIdx.x``; the local stage is
  computed at the thread loop and ordered ``S R0 R1 S3 R2 S4``;
* every input of such a stage is ``cache_read`` to ``"shared"`` and computed at the
  reduction's outer tile (``R0``), its copy loops fused, split by the block's thread count
  and bound to ``threadIdx.x`` (cooperative fetching); an inlined producer (a padding) is
  inlined into that copy;
* a reduction with no spatial loop, or one that reuses no input across loops (a row sum or
  max) over at least two warps, is a cross-thread reduction: its spatial loops fused and
  bound to ``blockIdx.x``, its reduction loops fused, split by a thread count and the inner
  part bound to ``threadIdx.x`` (TVM's cross-thread reduction rule);
* a reduction with several outputs (an argmax's ``comm_reducer`` over ``(index, value)``
  pairs) is a cross-thread reduction when it has no spatial loop or reduces over at least two
  warps, else its spatial loops are fused, split and bound like an elementwise stage's, the
  reduction running in each thread;
* the init and update computes of a ``te.scan`` run in the scan's time loop: their loops
  after the first (the time axis) are fused, split by a thread count and bound to
  ``blockIdx.x`` and ``threadIdx.x`` (each time step one launch-wide sweep), never inlined;
* a remaining injective (output) stage fuses its loops, splits them by a thread count and
  binds the parts to ``blockIdx.x`` and ``threadIdx.x``.

Parameters are those of the CPU sketch (``params["tile"]``, ``params["unroll"]``: the
``auto_unroll_max_step`` pragma of the host's block loop). Draws respect the target: the
threads of a block (the product of the thread levels) at most ``max_num_threads``, virtual
threads at most ``MAX_VTHREAD``, the accumulators of a thread at most ``MAX_LOCAL``, and the
shared tiles (estimated from each read's index variables: the sum of their tile extents) at
most ``max_shared_memory_per_block`` bytes.

Stages outside these rules (symbolic shapes, a scan over a state with no axis besides time)
are listed in ``unsupported`` and left as they are, which a CUDA build refuses as unbound;
such DAGs are not searchable on GPUs yet.
"""
from __future__ import annotations

import math
import random

import numpy as np

from ..target import Target, is_gpu_kind
from ..tensor.tensor import ComputeOp
from ..tir.expr import ProducerLoad
from ..tir.functor import collect_vars, post_order_visit
from .loop_state import State
from .sketch import Sketch, _const, _ext, _has_reuse, _injective, _prime_factors, \
    _same_shape, _tileable, crossover_tiles, divisors, mutate_tiles, scan_parts

UNROLL_CHOICES = [0, 16, 64, 512, 1024]
MAX_VTHREAD = 8
MAX_LOCAL = 64


def _fusion_host(dag, op):
    """The output stage at the end of a chain of single-consumer elementwise stages of
    ``op``'s shape (all but the last inlined), or None."""
    cur = op
    while True:
        cons = dag.consumers[dag.name_of(cur)]
        if len(cons) != 1 or not _injective(cons[0]) or not _same_shape(op, cons[0]):
            return None
        cur = cons[0]
        if dag.is_output(cur):
            return cur


def _reads(op) -> list:
    out = []
    post_order_visit(op.body[0], lambda n: out.append(n) if isinstance(n, ProducerLoad)
                     else None)
    return out


class GpuSketch:
    """The rule-made structure of one DAG's GPU programs for ``target`` (see the module
    docstring); the interface of ``Sketch``."""

    def __init__(self, dag, target):
        self.dag = dag
        self.target = Target.canon_target(target)
        self.max_threads = max(1, self.target.max_num_threads)
        self.warp = max(1, self.target.thread_warp_size)
        self.max_shared = int(self.target.attrs.get("max_shared_memory_per_block", 49152))
        self.lanes, self.regs = 1, MAX_LOCAL        # read by the cost model's features
        self.plan = []
        self.tile_keys = {}
        self.unsupported = []           # stages no rule schedules (a CUDA build refuses them)
        self._shared_names = {}         # (tiled stage, input) -> its shared cache stage
        hosted = {}
        for op in dag.compute_ops:
            if _tileable(op) and not dag.is_output(op):
                host = _fusion_host(dag, op)
                if host is not None and dag.name_of(host) not in hosted:
                    hosted[dag.name_of(host)] = dag.name_of(op)
        tiled_by_host = set(hosted.values())
        in_scan = scan_parts(dag)
        for op in reversed(dag.compute_ops):
            name = dag.name_of(op)
            if name in tiled_by_host:
                continue
            if name in in_scan:
                if len(op.axis) > 1 and all(_const(iv) for iv in op.axis[1:]):
                    fused = "@".join(iv.var.name for iv in op.axis[1:])
                    self.tile_keys[f"{name}/{fused}"] = (
                        math.prod(_ext(iv) for iv in op.axis[1:]), 2)
                    self.plan.append(("scan", name, None))
                else:
                    self.unsupported.append(name)
            elif name in hosted:
                self._add_tiled(dag.op_by_name[hosted[name]], name)
            elif _injective(op) and not dag.is_output(op):
                self.plan.append(("inline", name, None))
            elif self._cross_thread(op):
                red = "@".join(iv.var.name for iv in op.reduce_axis)
                self.tile_keys[f"{name}/{red}"] = (
                    math.prod(_ext(iv) for iv in op.reduce_axis), 2)
                self.plan.append(("xthread", name, None))
            elif _tileable(op):
                self._add_tiled(op, None)
            elif (_injective(op) or len(op.body) > 1) and op.axis and \
                    all(_const(iv) for iv in op.axis):
                fused = "@".join(iv.var.name for iv in op.axis)
                self.tile_keys[f"{name}/{fused}"] = (math.prod(_ext(iv) for iv in op.axis), 2)
                self.plan.append(("simple", name, None))
            else:
                self.unsupported.append(name)

    def _cross_thread(self, op) -> bool:
        """TVM's cross-thread reduction rule, for a reduction with no spatial loop, or one
        whose reads reuse nothing across loops (a row sum) over at least two warps: the
        threads of a block share the reduction loops."""
        if not (isinstance(op, ComputeOp) and op.reduce_axis and
                all(_const(iv) for iv in list(op.axis) + list(op.reduce_axis))):
            return False
        if not op.axis:
            return True
        red = math.prod(_ext(iv) for iv in op.reduce_axis)
        if len(op.body) > 1:            # a tuple reduction: no tiling rule for it
            return red >= 2 * self.warp
        return red >= 2 * self.warp and not _has_reuse(op)

    def _add_tiled(self, op, host):
        oname = self.dag.name_of(op)
        for iv in op.axis:
            self.tile_keys[f"{oname}/{iv.var.name}"] = (_ext(iv), 5)
        for iv in op.reduce_axis:
            self.tile_keys[f"{oname}/{iv.var.name}"] = (_ext(iv), 3)
        inputs = []
        for t in op.input_tensors:
            tname = self.dag.name_of(t.op)
            if tname not in inputs:
                inputs.append(tname)
                taken = set(self._shared_names.values())
                shared, k = f"{tname}.shared", 1
                while shared in taken:          # another tiled stage reads it too
                    shared, k = f"{tname}.shared{k}", k + 1
                self._shared_names[(oname, tname)] = shared
        self.plan.append(("tiled", oname, (host, inputs)))

    # --- steps ------------------------------------------------------------------------------
    def steps(self, params) -> list:
        tile, unroll = params["tile"], int(params.get("unroll", 0))
        out = [["SKETCH", params]]
        for kind, name, extra in self.plan:
            op = self.dag.op_by_name[name]
            if kind == "inline":
                out.append(["CI", name])
            elif kind == "simple":
                axes = [iv.var.name for iv in op.axis]
                fused = "@".join(axes)
                if len(axes) > 1:
                    out.append(["FU", name, axes])
                out.append(["SP", name, fused, [tile[f"{name}/{fused}"][1]]])
                out.append(["AN", name, f"{fused}.0", "blockIdx.x"])
                out.append(["AN", name, f"{fused}.1", "threadIdx.x"])
            elif kind == "xthread":
                out.extend(self._cross_thread_steps(op, tile))
            elif kind == "scan":
                axes = [iv.var.name for iv in op.axis[1:]]
                fused = "@".join(axes)
                if len(axes) > 1:
                    out.append(["FU", name, axes])
                out.append(["SP", name, fused, [tile[f"{name}/{fused}"][1]]])
                out.append(["AN", name, f"{fused}.0", "blockIdx.x"])
                out.append(["AN", name, f"{fused}.1", "threadIdx.x"])
            else:
                out.extend(self._tiled_steps(op, extra[0], extra[1], tile, unroll))
        return out

    def _cross_thread_steps(self, op, tile) -> list:
        """Spatial loops fused and bound to ``blockIdx.x``; reduction loops fused, split by
        the thread count and the inner part bound to ``threadIdx.x`` (an all-reduce)."""
        name = self.dag.name_of(op)
        sp = [iv.var.name for iv in op.axis]
        rd = [iv.var.name for iv in op.reduce_axis]
        red = "@".join(rd)
        out = []
        if sp:
            if len(sp) > 1:
                out.append(["FU", name, sp])
            out.append(["AN", name, "@".join(sp), "blockIdx.x"])
        if len(rd) > 1:
            out.append(["FU", name, rd])
        out.append(["SP", name, red, [tile[f"{name}/{red}"][1]]])
        out.append(["AN", name, f"{red}.1", "threadIdx.x"])
        return out

    def _tiled_steps(self, op, host_name, inputs, tile, unroll) -> list:
        name = self.dag.name_of(op)
        sp = [iv.var.name for iv in op.axis]
        rd = [iv.var.name for iv in op.reduce_axis]
        lv = {a: tile[f"{name}/{a}"] for a in sp + rd}
        local = f"{name}.local"
        out = [["CHW", name, "local"]]
        if host_name is None:
            host, host_axes = name, sp
        else:
            out.append(["CI", name])            # the copy-out, into the fused consumer
            host = host_name
            host_axes = [iv.var.name for iv in self.dag.op_by_name[host_name].axis]
        for t in inputs:
            out.append(["CHR", t, "shared", [local], self._shared_names[(name, t)]])
        for h, a in zip(host_axes, sp):
            out.append(["SP", host, h, [lv[a][1], lv[a][2], lv[a][3] * lv[a][4]]])
        out.append(["RE", host, [f"{h}.{k}" for k in range(4) for h in host_axes]])
        levels = []
        for k, tag in enumerate(("blockIdx.x", "vthread", "threadIdx.x")):
            loops = [f"{h}.{k}" for h in host_axes]
            if len(loops) > 1:
                out.append(["FU", host, loops])
            levels.append("@".join(loops))
            out.append(["AN", host, levels[-1], tag])
        if unroll:
            out.append(["PR", host, levels[0], "auto_unroll_max_step", unroll])
        out.append(["CA", local, host, levels[2]])
        for a in sp:
            out.append(["SP", local, a, [lv[a][3], lv[a][4]]])
        for a in rd:
            out.append(["SP", local, a, [lv[a][1], lv[a][2]]])
        out.append(["RE", local, [f"{a}.0" for a in sp] + [f"{a}.0" for a in rd] +
                    [f"{a}.1" for a in rd] + [f"{a}.1" for a in sp] +
                    [f"{a}.2" for a in rd] + [f"{a}.2" for a in sp]])
        threads = math.prod(lv[a][2] for a in sp)
        for t in inputs:
            shared = self._shared_names[(name, t)]
            dims = len(self.dag.op_by_name[t].output(0).shape)
            axes = [f"ax{k}" for k in range(dims)]
            fused = "@".join(axes)
            out.append(["CA", shared, local, f"{rd[-1]}.0"])
            if len(axes) > 1:
                out.append(["FU", shared, axes])
            out.append(["SP", shared, fused, [threads]])
            out.append(["AN", shared, f"{fused}.1", "threadIdx.x"])
        return out

    def state(self, params) -> State:
        return State(self.steps(params), params)

    # --- limits -----------------------------------------------------------------------------
    def shared_bytes(self, name, tile) -> int:
        """An estimate of the shared memory a block of tiled stage ``name`` holds: per input
        read, the product over its indices of the sum of the block's tile extents of the
        variables the index uses (less one per extra variable: ``y + ry`` spans
        ``ty + tr - 1``), times the element size. Bound inference may give a shared stage
        more: a fused thread loop over several axes relaxes to whole ranges of the inner
        ones (checked with ptxas: equal for matmuls and wide conv tiles, up to 3x under for
        small conv tiles); a state over the limit then fails to build and is logged as
        an error."""
        op = self.dag.op_by_name[name]
        ext = {}
        for iv in op.axis:
            lv = tile[f"{name}/{iv.var.name}"]
            ext[iv.var] = lv[1] * lv[2] * lv[3] * lv[4]
        for iv in op.reduce_axis:
            lv = tile[f"{name}/{iv.var.name}"]
            ext[iv.var] = lv[1] * lv[2]
        total, seen = 0, set()
        for load in self._direct_reads(op):
            key = (self.dag.name_of(load.producer.op), str(load.indices))
            if key in seen:
                continue
            seen.add(key)
            n = 1
            for idx in load.indices:
                vs = [v for v in collect_vars(idx) if v in ext]
                n *= max(1, sum(ext[v] for v in vs) - max(0, len(vs) - 1))
            total += n * _itemsize(load.producer.dtype)
        return total

    def _direct_reads(self, op) -> list:
        return _reads(op)

    def _ok(self, tile) -> bool:
        for kind, name, _ in self.plan:
            if kind in ("simple", "xthread", "scan"):
                f = tile[next(k for k in self.tile_keys if k.startswith(name + "/"))][1]
                if f > self.max_threads:
                    return False
            if kind != "tiled":
                continue
            op = self.dag.op_by_name[name]
            sp = [tile[f"{name}/{iv.var.name}"] for iv in op.axis]
            if math.prod(lv[2] for lv in sp) > self.max_threads or \
                    math.prod(lv[1] for lv in sp) > MAX_VTHREAD or \
                    math.prod(lv[3] * lv[4] for lv in sp) > MAX_LOCAL:
                return False
            if self.shared_bytes(name, tile) > self.max_shared:
                return False
        return True

    # --- parameters -------------------------------------------------------------------------
    def random_params(self, rng: random.Random) -> dict:
        for _ in range(100):
            tile = {}
            for key, (extent, levels) in self.tile_keys.items():
                rest, inner = extent, []
                for _ in range(levels - 1):
                    d = rng.choice(divisors(rest))
                    inner.append(d)
                    rest //= d
                tile[key] = [rest] + inner[::-1]
            if self._ok(tile):
                return {"tile": tile, "unroll": rng.choice(UNROLL_CHOICES)}
        return self.default_params()

    def mutate(self, params, rng: random.Random) -> dict:
        """A copy of ``params`` with one prime factor moved between two levels of one split
        (or, one time in five, another unroll budget), within the target's limits."""
        return mutate_tiles(params, rng, self.tile_keys, self._ok, UNROLL_CHOICES)

    def crossover(self, a, b, rng: random.Random):
        return crossover_tiles(a, b, rng, self.tile_keys, self._ok)

    def default_params(self) -> dict:
        """Analytical tile sizes: threads from the innermost spatial loops up to a warp
        (then up to 4 warps), 2 x 2 accumulators per thread where they divide, an inner
        reduction tile of up to 8 on the last reduction loop, the rest to blocks; shrunk
        until the shared tiles fit."""
        tile = {}
        for kind, name, _ in self.plan:
            op = self.dag.op_by_name[name]
            if kind in ("simple", "scan"):
                key = next(k for k in self.tile_keys if k.startswith(name + "/"))
                n = self.tile_keys[key][0]
                t = _largest_divisor(n, min(256, self.max_threads))
                tile[key] = [n // t, t]
            elif kind == "xthread":
                key = next(k for k in self.tile_keys if k.startswith(name + "/"))
                n = self.tile_keys[key][0]
                t = _largest_divisor(n, min(8 * self.warp, self.max_threads))
                tile[key] = [n // t, t]
            elif kind == "tiled":
                sp = [iv.var.name for iv in op.axis]
                threads = 1
                for a in reversed(sp):
                    n = self.tile_keys[f"{name}/{a}"][0]
                    s4 = _largest_divisor(n, 2) if threads == 1 or len(sp) <= 2 else 1
                    t = _largest_divisor(n // s4, max(1, min(self.warp * 4, self.max_threads)
                                                      // threads))
                    threads *= t
                    tile[f"{name}/{a}"] = [n // (s4 * t), 1, t, 1, s4]
                rd = [iv.var.name for iv in op.reduce_axis]
                for i, a in enumerate(rd):
                    n = self.tile_keys[f"{name}/{a}"][0]
                    r1 = _largest_divisor(n, 8) if i == len(rd) - 1 else 1
                    tile[f"{name}/{a}"] = [n // r1, 1, r1]
                for a in rd:                    # shrink the reduction tile until it fits
                    key = f"{name}/{a}"
                    while self.shared_bytes(name, tile) > self.max_shared and tile[key][2] > 1:
                        f = _prime_factors(tile[key][2])[0]
                        tile[key][2] //= f
                        tile[key][0] *= f
        return {"tile": tile, "unroll": 512}


def _largest_divisor(n: int, cap: int) -> int:
    return max(d for d in divisors(n) if d <= max(1, cap))


def _itemsize(dtype) -> int:
    try:
        return np.dtype(str(dtype)).itemsize
    except TypeError:
        return 4


def make_sketch(dag, target):
    """The sketch for ``target``: ``GpuSketch`` for a GPU target, else the CPU ``Sketch``."""
    target = Target.canon_target(target) or Target("llvm")
    return GpuSketch(dag, target) if is_gpu_kind(target) else Sketch(dag, target)
