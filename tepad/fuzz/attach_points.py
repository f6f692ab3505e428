"""Where a stage may be computed: its consumers, and the loops that enclose all of them."""
from __future__ import annotations


def is_compute(st):
    """Is ``st`` the stage of a ``te.compute`` (not a placeholder)?"""
    return type(st.op).__name__ == "ComputeOp"


def can_inline(st):
    """May ``st.compute_inline()`` be drawn as a legal step?"""
    return not st.is_output and not st.op.reduce_axis and st.op.num_outputs == 1 and \
        not _scan_state(st)


def _scan_state(st):
    """Is ``st``'s tensor the init, update or state placeholder of a scan (its values are the
    scan's state buffer)?"""
    t = st.op.output(0)
    return any(type(x.op).__name__ == "ScanOp" and
               t in x.op.init + x.op.update + x.op.state_placeholder
               for x in st.schedule.stages)


def scan_related(st):
    """Is ``st`` a scan, a stage of a scan's body, or a scan's init/update/state (stages
    transform_layout refuses)?"""
    return type(st.op).__name__ == "ScanOp" or getattr(st, "scan_stage", None) is not None \
        or _scan_state(st)


def consumers(s, st):
    """Stages whose current op reads ``st``'s current op."""
    return [c for c in s.stages
            if is_compute(c) and any(t.op is st.op for t in c.op.input_tensors)]


def effective_consumers(s, st):
    """Consumers, looking through stages that will be inlined."""
    out = []
    for c in consumers(s, st):
        if c.attach_type.name == "Inline":
            out.extend(x for x in effective_consumers(s, c) if x not in out)
        elif c not in out:
            out.append(c)
    return out


def _inside(c, p, pos):
    """Is stage ``c`` computed inside leaf loop ``pos`` of stage ``p``?"""
    if c is p:
        return True
    x = c
    while x.attach_type.name == "Scope":
        tgt, iv = x.attach_stage, x.attach_ivar
        if tgt is p:
            k = next((k for k, v in enumerate(p.leaf_iter_vars) if v is iv), None)
            return k is not None and k >= pos
        x = tgt
    return False


def attached_inside(p, st):
    """Is ``p`` (transitively) attached inside ``st``?"""
    x = p
    while x.attach_type.name == "Scope":
        if x.attach_stage is st:
            return True
        x = x.attach_stage
    return False


def legal_attach_points(s, st):
    """Every (stage, leaf IterVar) where ``st`` may be computed: all its consumers inside."""
    cons = effective_consumers(s, st)
    if not cons:
        return []
    out = []
    for p in s.stages:
        if p is st or not is_compute(p) or p.attach_type.name in ("Inline", "InlinedAlready"):
            continue
        if attached_inside(p, st):
            continue
        for pos, iv in enumerate(p.leaf_iter_vars):
            if all(_inside(c, p, pos) for c in cons):
                out.append((p, iv))
    return out


__all__ = ["is_compute", "can_inline", "scan_related", "consumers", "effective_consumers", "attached_inside",
           "legal_attach_points"]
