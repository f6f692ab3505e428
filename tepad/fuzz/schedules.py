"""Drawing a case's schedule: outputs, dataflow rewrites, then per stage (consumers first)
layouts, loops (loops.py), pragmas and prefetches (annotations.py), attachment, rolling
buffers and storage_align, then sometimes a group (groups.py), with at most one illegal step.

Every schedule line is executed at once through ``Case.run``; IterVars get Python names as
they are first used (``iv``), so the lines form a runnable program.
"""
from __future__ import annotations

from .annotations import (maybe_axis_separators, maybe_double_buffer, maybe_pragma,
                          maybe_prefetch, maybe_storage_align, maybe_store_predicate)
from .attach_points import can_inline, is_compute, legal_attach_points
from .groups import maybe_group
from .illegal import illegal_step
from .layout_maps import maybe_layout
from .loops import draw_loops, nested, split_again
from .rolling import rolling_applicable
from .tensorize import maybe_tensorize

# Extra hooks (the generator itself draws transform_layout and rolling_buffer, see
# ``layout_maps.maybe_layout`` / ``ScheduleDrawer.maybe_rolling``). Each entry is
# ``fn(case, src, stage_name)`` called after a stage's loop transforms and before its
# attachment; it may append and execute lines through ``case.run(line)`` and must keep the
# schedule legal (or mark ``case.illegal``).
LAYOUT_HOOKS: list = []


def _ident(name):
    return "".join(c if c.isalnum() else "_" for c in str(name))


class ScheduleDrawer:
    """Draws a schedule for the outputs of a ``DefinitionDrawer``'s case, line by line."""

    def __init__(self, gen):
        self.src = gen.src
        self.cfg = gen.cfg
        self.case = gen.case
        self.ns = gen.case.ns
        self.ivnames: dict = {}     # id(IterVar) -> python name
        self.tnames: dict = {}      # id(Operation) of stage's origin op -> python tensor name
        self.n_iv = 0
        self.looped: set = set()    # id(Stage) of the stages whose loop transforms are drawn

    # -- names --------------------------------------------------------------------------------
    def stage_expr(self, st):
        """``s[name]`` for ``st`` as code text."""
        return f"s[{self.tnames[id(st.origin_op)]}]"

    def iv(self, st, iv):
        """The Python name of leaf IterVar ``iv`` of ``st``; on first use a line binds it
        from ``leaf_iter_vars``."""
        key = id(iv)
        if key not in self.ivnames:
            pos = next(k for k, x in enumerate(st.leaf_iter_vars) if x is iv)
            nm = f"{_ident(self.tnames[id(st.origin_op)])}_{_ident(iv.name)}_{self.n_iv}"
            self.n_iv += 1
            self.case.run(f"{nm} = {self.stage_expr(st)}.leaf_iter_vars[{pos}]")
            self.ivnames[key] = nm
        return self.ivnames[key]

    def any_iv(self, st, iv):
        """A name for any IterVar of ``st`` (leaf or not), via ``all_iter_vars``."""
        key = id(iv)
        if key not in self.ivnames:
            pos = next(k for k, x in enumerate(st.all_iter_vars) if x is iv)
            nm = f"{_ident(self.tnames[id(st.origin_op)])}_{_ident(iv.name)}_{self.n_iv}"
            self.n_iv += 1
            self.case.run(f"{nm} = {self.stage_expr(st)}.all_iter_vars[{pos}]")
            self.ivnames[key] = nm
        return self.ivnames[key]

    def new_ivs(self, st, base):
        """Fresh names for the IterVars a split/fuse/tile of ``st`` is about to return."""
        names = []
        for suffix in base:
            nm = f"{_ident(self.tnames[id(st.origin_op)])}_{suffix}{self.n_iv}"
            self.n_iv += 1
            names.append(nm)
        return names

    def bind_names(self, *names):
        """Record that the IterVars just assigned to ``names`` (in ``ns``) have those names."""
        for nm in names:
            self.ivnames[id(self.ns[nm])] = nm

    # -- the schedule -------------------------------------------------------------------------
    def draw(self):
        """Draw the whole schedule into the case (``s`` in its namespace)."""
        case, src = self.case, self.src
        outs = self.choose_outputs()
        case.outputs = outs
        case.sched_start = len(case.lines)
        case.run(f"s = te.create_schedule([{', '.join(t.name + '.op' for t in outs)}])")
        s = self.ns["s"]
        case.placeholders = [t for t in case.placeholders if self.ns[t.name].op in s.stage_map]
        for t in case.tensors:
            self.tnames[id(self.ns[t.name].op)] = t.name
        for name in case.aux:
            self.tnames[id(self.ns[name].op)] = name
        self.illegal_at = src.int(0, 4) if src.flag(self.cfg.illegal_rate) else None
        self.frozen = False     # an accepted illegal step: no later attachment may undo it
        self.dataflow_rewrites(s)
        self.layout_on = src.flag(self.cfg.layout_percent)
        if self.layout_on:      # layouts of inputs (the caller passes physical arrays)
            for st in list(s.stages):
                if not is_compute(st) and id(st.origin_op) in self.tnames:
                    maybe_layout(self, st)
        if self.illegal_at == 0:
            illegal_step(self, s)
        order = [st for st in reversed(s.stages) if is_compute(st)]
        half = len(order) // 2
        self.made = set()       # id(Stage) of the stages rfactor / late cache_write made
        k = 0
        while k < len(order):
            st = order[k]
            # rfactor / cache_write make a new stage (a producer of st): it gets its own
            # loops and attachment right after st
            made = [] if self.frozen else [self.maybe_rfactor(s, st)]
            if self.layout_on and id(st) not in self.made:
                # before any loop transform: the axes must be adjacent leaves
                maybe_layout(self, st)
                maybe_axis_separators(self, st)
            draw_loops(self, st)
            maybe_pragma(self, st)
            maybe_prefetch(self, s, st)
            maybe_store_predicate(self, st)
            maybe_double_buffer(self, st)
            self.looped.add(id(st))
            if not self.frozen:
                made.append(self.maybe_late_cache_write(s, st))
            made = [x for x in reversed(made) if x is not None]     # consumers first
            self.made.update(id(x) for x in made)
            order[k + 1:k + 1] = made
            if self.illegal_at == 1 and k == half:
                illegal_step(self, s)
            for hook in LAYOUT_HOOKS:
                hook(case, src, self.tnames[id(st.origin_op)])
            if not st.is_output and not self.frozen:
                self.attach(s, st)
                self.maybe_rolling(s, st)
            self.maybe_scope(st)
            if st.attach_type.name not in ("Inline", "InlinedAlready"):
                maybe_storage_align(self, st)
            k += 1
        if not self.frozen:
            # groups first: regrouping moves a stage, which would change a tensorized tile
            # after tensorize checked it
            maybe_group(self, s)
            maybe_tensorize(self, s)
        if self.illegal_at is not None and self.illegal_at >= 2:
            illegal_step(self, s)

    def choose_outputs(self):
        """The last tensor, and sometimes other sinks and one tensor read by another stage."""
        ts = [t for t in self.case.tensors if not t.placeholder]
        last = ts[-1]
        if self.cfg.single_output:
            return [last]
        used = set()
        for t in ts:
            obj = self.ns[t.name]
            for inp in obj.op.input_tensors:
                used.add(id(inp.op))
        sinks = [t for t in ts if id(self.ns[t.name].op) not in used and t is not last]
        outs = [last] + [t for t in sinks if self.src.flag(50)]
        if len(ts) > 1 and self.src.flag(8):     # an output that is also read by another stage
            extra = self.src.pick(ts[:-1])
            if extra not in outs:
                outs.append(extra)
        return outs

    # dataflow: cache_write / cache_read ---------------------------------------------------------
    def dataflow_rewrites(self, s):
        """Sometimes cache_write (before any loop transform) and cache_read, per tensor."""
        pct = self.cfg.cache_percent
        for t in list(self.case.tensors):
            obj = self.ns[t.name]
            st = s.stage_map.get(obj.op)
            if st is None:
                continue
            if not t.placeholder and self.src.flag(pct) and not st.relations and \
                    is_compute(st):
                nm = f"{t.name}_l"
                self.case.run(f"{nm} = s.cache_write({t.name}, 'local')")
                self.tnames[id(self.ns[nm].op)] = nm
            if self.src.flag(pct):
                readers = [r for r in s.stages if is_compute(r) and
                           s[obj].op.output(obj.value_index) in r.op.input_tensors]
                if not readers:
                    continue
                chosen = [r for r in readers if self.src.flag(60)] or readers[:1]
                rnames = ", ".join(self.tnames[id(r.origin_op)] for r in chosen)
                nm = f"{t.name}_s"
                self.case.run(f"{nm} = s.cache_read({t.name}, 'shared', [{rnames}])")
                self.tnames[id(self.ns[nm].op)] = nm

    # rfactor / cache_write after loop transforms --------------------------------------------
    def maybe_rfactor(self, s, st):
        """Sometimes rfactor a reduction stage (before its loops are drawn) over a reduce axis
        or a part of a split one; returns the new stage (or None)."""
        src, run = self.src, self.case.run
        if not st.op.reduce_axis or st.layout_transforms or st.relations or \
                not src.flag(self.cfg.rfactor_percent):
            return None
        se, tname = self.stage_expr(st), self.tnames[id(st.origin_op)]
        axis = self.iv(st, src.pick(list(st.op.reduce_axis)))
        again = nested(self)
        if src.flag(60) or again:
            o, i = self.new_ivs(st, ("o", "i"))
            how = "nparts" if src.flag(30) else "factor"
            run(f"{o}, {i} = {se}.split({axis}, {how}={src.pick([2, 3, 4, 8])})")
            self.bind_names(o, i)
            axis = src.pick([o, i])
            if again:       # split a piece again; often factor its inner part
                rest = i if axis == o else o
                o2, i2 = split_again(self, st, axis)
                axis = i2 if src.flag(50) else src.pick([o2, i2, rest])
        ndim = len(st.op.axis)
        fa = src.int(0, ndim) if src.flag(80) else -1
        nm = f"{tname}_rf"
        run(f"{nm} = s.rfactor({tname}, {axis}, {fa})")
        self.tnames[id(self.ns[nm].op)] = nm
        return s[self.ns[nm]]

    def maybe_late_cache_write(self, s, st):
        """Sometimes cache_write a stage whose data loops were split/fused/reordered or given a
        transform_layout (the cache takes the loops as its layout); returns the cache stage
        (or None)."""
        if not st.relations or st.attach_type.name in ("Inline", "InlinedAlready") or \
                not self.src.flag(self.cfg.late_cache_percent):
            return None
        if st.scan_stage is not None and \
                any(type(r).__name__ != "Transform" for r in st.relations):
            return None          # refused: a scan body stage is cached before its loops change
        reduce = set(st.op.reduce_axis)
        if any(iv not in reduce and iv.iter_type.name != "DataPar"
               for iv in st.leaf_iter_vars):
            return None
        if nested(self):
            plain = [iv for iv in st.leaf_iter_vars if iv.iter_type.name == "DataPar" and
                     iv not in st.iter_var_attrs]
            if plain:
                o, i = split_again(self, st, self.iv(st, self.src.pick(plain)))
                split_again(self, st, i)
        tname = self.tnames[id(st.origin_op)]
        nm = f"{tname}_lc"
        self.case.run(f"{nm} = s.cache_write({tname}, 'local')")
        self.tnames[id(self.ns[nm].op)] = nm
        return s[self.ns[nm]]

    # attachment ---------------------------------------------------------------------------------
    def attach(self, s, st):
        """Leave ``st`` at the root, compute_root, compute_inline, or compute_at a legal point
        (often one where it can roll; a stage with a layout is never made rolling)."""
        src, run = self.src, self.case.run
        se = self.stage_expr(st)
        if self.tnames[id(st.origin_op)] in self.case.scan_inputs and can_inline(st) and \
                src.flag(60):
            run(f"{se}.compute_inline()")        # a scan's inputs= is only a hint
            return
        if not st.layout_transforms:
            # a stencil producer: often computed per tile of its consumer (rolling_buffer)
            points = legal_attach_points(s, st)
            rolling = [(p, iv) for p, iv in points
                       if rolling_applicable(s, st, p, iv)]
            if rolling and src.flag(70):
                p, iv = src.pick(rolling)
                run(f"{se}.compute_at({self.stage_expr(p)}, {self.iv(p, iv)})")
                return
        choice = src.int(0, 5)
        if choice == 1:
            run(f"{se}.compute_root()")
        elif choice == 2 and can_inline(st):
            run(f"{se}.compute_inline()")
        elif choice >= 3:
            # a stage with a layout may be computed at a loop too: the layout then applies to
            # the region it realizes there (a local buffer)
            points = legal_attach_points(s, st)
            if points:
                p, iv = src.pick(points)
                run(f"{se}.compute_at({self.stage_expr(p)}, {self.iv(p, iv)})")

    # rolling_buffer -------------------------------------------------------------------------------
    def maybe_rolling(self, s, st):
        """Sometimes ``rolling_buffer()`` on ``st``, where ``rolling_applicable`` allows it."""
        if st.attach_type.name != "Scope" or not rolling_applicable(s, st):
            return
        if self.src.flag(self.cfg.rolling_percent):
            self.case.run(f"{self.stage_expr(st)}.rolling_buffer()")

    # set_scope --------------------------------------------------------------------------------
    def maybe_scope(self, st):
        """Sometimes ``set_scope`` on a compute stage that is not inlined (on the CPU a storage
        scope changes no loop; the stage must still compute the same values)."""
        if st.attach_type.name in ("Inline", "InlinedAlready"):
            return
        if self.src.flag(self.cfg.scope_percent):
            scope = self.src.pick(["local", "shared", "global", "warp"])
            self.case.run(f"{self.stage_expr(st)}.set_scope({scope!r})")


__all__ = ["ScheduleDrawer", "LAYOUT_HOOKS"]
