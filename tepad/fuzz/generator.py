"""Random compute DAGs with random schedules, written as runnable tepad code.

The generator never builds objects behind the reader's back: every definition and schedule
step is a line of Python that is executed at once in a namespace (``case.ns``) and kept in
``case.lines``. The lines *are* the reproducer: ``case.script()`` is a runnable program.

Every random choice goes through a ``Source`` (``int(lo, hi)``; ``sources.py``): fresh and
recorded, replayed (what the shrinker mutates), or drawn by hypothesis. Choice 0 is always the
simplest option (the smallest size, no optional step, the first kind), so shrinking towards 0
shrinks the program.

Where things are
----------------
``generator.py`` (this module): ``generate`` and ``draw_program``, the entry points;
``sources.py``: the choice streams; ``case.py``: ``Config``, ``Case``, ``Tens``;
``reproducer.py``: ``Case.script()``; ``definitions.py`` and ``ops.py``: tensors and the ops
that define them; ``schedules.py``: the schedule drawer (outputs, cache_read/cache_write,
attachment, rolling buffers) with ``loops.py`` (loop transforms and annotations),
``layout_maps.py`` (transform_layout) and ``illegal.py`` (deliberately illegal steps);
``attach_points.py`` and ``rolling.py``: which attachments and rolling buffers are legal;
``layouts.py`` and ``arrays.py``: arrays at run time.

What is drawn
-------------
Definitions: 1-3 placeholders over up to three dimension "bases" (``H``, ``W``, ``K``), each
either a constant (odd sizes welcome) or a ``te.var`` bound at call time; dtypes int32,
float32, int8 (plus casts between them). Operations: elementwise, binary, broadcasts of 1-D
tensors, stencils with offsets, zero-padding through ``te.if_then_else`` (guarded loads that
would be out of bounds when the branch is not taken), transposes, window reductions
(sum/max/min), full-row/column sums, matmul-like contractions, outer products, casts.

Schedules (every primitive tepad has; ``tests/fuzz/test_fuzz_primitives.py`` checks it):
cache_read, cache_write (drawn before any loop transform of the stage), split (factor or
nparts, non-divisible welcome), fuse, reorder, tile, vectorize, unroll, parallel,
compute_inline, compute_root, compute_at at legal points only (every consumer of the stage,
looking through inlined stages, is inside the chosen loop), set_scope, tensorize (the
innermost loop of a stage elementwise along its last axis, with an intrinsic declared from the
stage's own definition and a plain-TIR body: ``tensorize.py``), and bind, which is
always illegal (tepad builds for the CPU only) and so only drawn as an illegal step; pragma
(auto unrolling budgets, TVM's parallel pragmas, an unknown one), prefetch of an input,
storage_align (``annotations.py``) and create_group of a stage with its only-consumed producer,
attached where the stage was (``groups.py``).

Layouts and rolling buffers: in about ``layout_percent`` % of the cases, inputs and compute
stages (before their loop transforms, so the axes are adjacent leaves) sometimes get one or two
``transform_layout`` calls: splits ``[i // c, i % c]`` (padding for non-divisible extents),
offset splits ``[(i + k) // c, (i + k) % c]`` (padding at both ends), permutations, outer/inner
parts moved, ``te.AXIS_SEPARATOR``; ``pad_value`` absent, a constant, or ``tir.undef``. A stage
with a layout stays at the root (or is inlined): compute_at of it is refused by design. The
runner passes inputs in the physical layout (``tepad/fuzz/layouts.py``: padding holds the pad
value, or a loud sentinel when it must never be read) and reads outputs back, checking that
their padding holds the pad value. ``rolling_buffer()`` is drawn on a producer computed at the
outer loop of a split of the window axis of its only consumer (``rolling_applicable``: a
stencil or window read, serial loops down to the attach point, a box region); consumers of
such producers often split that axis first and the producer is then often attached there.
``LAYOUT_HOOKS`` takes extra hooks.

GPU schedules (``Config(gpu=True)``, ``--gpu``; off by default): ``gpu.py`` draws blocks and
threads, vthreads, shared/local caches with cooperative fetches and cross-thread reductions,
built for ``"cuda"`` through the emulator with its race check.

Auto-scheduler cases (``Config(auto_scheduler_percent=...)``, ``--auto-scheduler``; off by
default): ``auto_sched.py`` draws a known operator or a random DAG and a random annotation of
its auto-scheduler sketch, the schedule written as the sketch's printed code.

With ``illegal_rate > 0`` a case may also contain one deliberately illegal step (compute_at
at a non-leaf, at a stage that does not enclose all consumers, a compute_at cycle, splitting
an axis twice, rolling_buffer at the root or on an output, a non-injective layout, a pad_value
reading another tensor, a thread binding, an unknown storage scope, a tensor intrinsic that
computes something else, ...). Such a step is
marked in ``case.illegal``; the runner then expects a ``TepadError`` (from the schedule call or
from lower/build), never another exception.
"""
from __future__ import annotations

import numpy as np

from .arrays import random_array
from .attach_points import effective_consumers, legal_attach_points
from .auto_sched import generate_auto
from .case import Case, Config
from .definitions import DefinitionDrawer
from .gpu import GpuScheduleDrawer
from .schedules import LAYOUT_HOOKS, ScheduleDrawer
from .sources import HypothesisSource, RandomSource, ReplaySource, Source


def generate(src: Source, cfg: Config | None = None) -> Case:
    """Draw a program and a schedule. May raise what the drawn (legal) steps raise."""
    cfg = cfg or Config()
    if cfg.auto_scheduler_percent and src.flag(cfg.auto_scheduler_percent):
        return generate_auto(src, cfg)
    gen = DefinitionDrawer(src, cfg)
    gen.define()
    (GpuScheduleDrawer if cfg.gpu else ScheduleDrawer)(gen).draw()
    case = gen.case
    case.data_seed = src.int(0, 2 ** 16)
    _draw_size_bindings(case, src)
    return case


def _draw_size_bindings(case, src):
    """One or two run-time bindings of the symbolic sizes, each keeping every extent >= 1."""
    if not any(isinstance(b, str) for b in case.bases.values()):
        return
    for _ in range(src.int(1, 2)):
        values = {}
        for base, name in case.bases.items():
            if isinstance(name, str):
                need = 1 - min([o for t in case.tensors for b, o in t.dims if b == base] + [0])
                values[name] = need + src.int(0, 9)
        case.base_values.append(values)


def draw_program(draw):
    """Hypothesis-facing generator kept for tests: ``(schedule, args, inputs, out, log)``.

    One float32/int32 placeholder ``A`` of constant shape, one output, legal schedules only,
    logical layouts (no transform_layout: the caller passes logical arrays; rolling buffers
    are drawn). ``log`` is the list of code lines (a runnable reproducer when joined).
    """
    cfg = Config(max_inputs=1, dtypes=("float32", "int32"), symbolic_percent=0,
                 illegal_rate=0, single_output=True, max_stages=4, layout_percent=0)
    case = generate(HypothesisSource(draw), cfg)
    ns = case.ns
    A = ns["A"]
    out = ns[case.outputs[0].name]
    rng = np.random.default_rng(case.data_seed)
    a = random_array(rng, case.concrete_shape(case.placeholders[0], {}), A.dtype)
    return ns["s"], [A, out], [a], out, list(case.lines)


__all__ = ["Source", "RandomSource", "ReplaySource", "HypothesisSource", "Config", "Case",
           "generate", "draw_program", "LAYOUT_HOOKS", "legal_attach_points",
           "effective_consumers", "random_array"]
