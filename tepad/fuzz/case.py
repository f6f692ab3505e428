"""A generated case (its lines, executed namespace and tensors) and the generator's settings."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import TepadError
from .reproducer import script_text


@dataclass
class Config:
    """What the generator may draw, and how often (percentages); the defaults are the CLI's."""

    max_stages: int = 5
    max_inputs: int = 3
    dtypes: tuple = ("float32", "int32", "int8")
    symbolic_percent: int = 30     # chance that the dimension bases are te.vars
    illegal_rate: int = 8          # percent of cases with one deliberately illegal step
    cache_percent: int = 12        # per stage: cache_write / cache_read
    single_output: bool = False    # only the last tensor is an output (draw_program)
    max_base: int = 12
    layout_percent: int = 22       # cases where transform_layout may be drawn at all
    rolling_percent: int = 70      # per applicable compute_at'd stencil producer
    scope_percent: int = 10        # per materialized compute stage: set_scope
    scan_percent: int = 0          # per drawn op: a te.scan (0: never, and no choice drawn,
                                   # so the cases of a seed stay what they were)
    tensorize_percent: int = 25    # cases where one elementwise stage may be tensorized
    rfactor_percent: int = 25      # per reduction stage: rfactor (of a split part, often)
    late_cache_percent: int = 10   # per split/fused/reordered stage: cache_write after it
    pragma_percent: int = 10       # per compute stage: a pragma on a leaf
    prefetch_percent: int = 6      # per compute stage: prefetch of a placeholder it reads
    align_percent: int = 8         # per attached/root compute stage: storage_align
    group_percent: int = 40        # per case: create_group of a stage and its producer
    store_predicate_percent: int = 5   # per compute stage: set_store_predicate(axis < extent)
    separator_percent: int = 5     # per compute stage without a layout: set_axis_separators
    double_buffer_percent: int = 4  # per intermediate compute stage: double_buffer
    gpu_double_buffer_percent: int = 0  # GPU: per shared/local cache stage computed at a
                                   # loop: double_buffer (0: never, and no choice drawn, so
                                   # the cases of a seed stay what they were)
    gpu: bool = False              # GPU schedules built for "cuda" through the emulator
                                   # (tepad/fuzz/gpu.py); off: no choice drawn for it
    nested_split_percent: int = 0  # per split drawn for rfactor, a late cache_write, a bound
                                   # loop or a stage's loops: split a piece again by a factor
                                   # that does not divide it or exceeds it (0: never, and no
                                   # choice drawn, so the cases of a seed stay what they were)
    auto_scheduler_percent: int = 0  # cases whose schedule is a random annotation of the
                                   # auto-scheduler's sketch (auto_sched.py; 0: never, and no
                                   # choice drawn, so the cases of a seed stay what they were)
    scan_inputs_percent: int = 0   # per drawn te.scan: init and update read x through a stage
                                   # listed in inputs=, which is often inlined (0: never)


@dataclass
class Tens:
    """A tensor of the case: its Python name, dims over the size bases, and dtype."""

    name: str
    dims: list          # [(base, offset)], extent = base + offset, offset <= 0
    dtype: str
    placeholder: bool = False
    reduction: bool = False


class GenerationRefused(Exception):
    """Internal: a drawn op does not fit (e.g. would make an extent < 1); draw another."""


@dataclass
class Case:
    """A drawn program: ``lines`` executed in order in ``ns`` give its tensors and schedule
    ``s``; ``illegal``/``refused`` list the deliberately illegal steps and their refusals."""

    lines: list = field(default_factory=list)
    ns: dict = field(default_factory=dict)
    tensors: list = field(default_factory=list)
    placeholders: list = field(default_factory=list)   # Tens
    aux: list = field(default_factory=list)            # names of a scan's own tensors
    outputs: list = field(default_factory=list)        # Tens
    bases: dict = field(default_factory=dict)           # base -> int or var name
    base_values: list = field(default_factory=list)     # runtime bindings for symbolic bases
    illegal: list = field(default_factory=list)         # descriptions of illegal steps
    refused: list = field(default_factory=list)         # (line, TepadError message)
    data_seed: int = 0
    sched_start: int = 0
    gpu: bool = False                                   # built for "cuda" (emulated)
    scan_inputs: list = field(default_factory=list)     # names of stages in a scan's inputs=

    # -- executing lines --------------------------------------------------------------------
    def run(self, line: str, illegal: str | None = None):
        """Execute ``line`` now and keep it. A ``TepadError`` from an illegal step is recorded
        (the line stays in the script inside a ``try``); anything else propagates."""
        if illegal is None:
            self.lines.append(line)
            exec(line, self.ns)
            return
        self.illegal.append(illegal)
        self.lines.append(f"try:  # deliberately illegal: {illegal}\n    {line}\n"
                          f"except tepad.TepadError as err:\n    print('refused:', err)")
        try:
            exec(line, self.ns)
        except TepadError as err:
            self.refused.append((line, str(err)))

    def script(self, exact=False, bounds_check=True) -> str:
        """A runnable program reproducing this case (definition, schedule, build, check)."""
        return script_text(self, exact, bounds_check)

    @property
    def has_layouts(self) -> bool:
        """Does some line call ``transform_layout`` (arguments then travel as physical arrays)?"""
        return any(".transform_layout(" in line for line in self.lines)

    def shape_text(self, t: Tens) -> str:
        """The shape of ``t`` as Python text for the reproducer (``sizes[...]`` when symbolic)."""
        return "(" + ", ".join(_sym_dim(self.bases[b], o) for b, o in t.dims) + \
            ("," if len(t.dims) == 1 else "") + ")"

    def concrete_shape(self, t: Tens, values: dict) -> tuple:
        """The shape of ``t`` with the symbolic bases bound to ``values``."""
        out = []
        for base, off in t.dims:
            b = self.bases[base]
            out.append((values[b] if isinstance(b, str) else b) + off)
        return tuple(out)


def _sym_dim(b, off):
    if isinstance(b, str):
        return f"sizes[{b!r}]" + (f" - {-off}" if off else "")
    return str(b + off)


__all__ = ["Config", "Tens", "GenerationRefused", "Case"]
