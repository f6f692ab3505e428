"""create_group draws (through a ``ScheduleDrawer`` ``d``), after every stage is drawn.

A group is drawn as ``{Y, X}`` for a stage X and a producer Y of it whose only effective
consumer is X, Y sitting at the root or at a loop of X. X is first sent to the root when it
was attached (create_group would do so, with a warning: its attachment lies outside the
group); then, often,
``g.compute_at(P, iv)`` at a point where X itself may be computed (every consumer of X inside
it, P neither Y nor attached inside Y) puts X there with Y in front of it. That is legal:
Y's only consumer is X, and Y's own producers are at the root or inside Y's (or X's) loops.
"""
from __future__ import annotations

from .attach_points import attached_inside, effective_consumers, is_compute, \
    legal_attach_points


def _candidates(s):
    out = []
    for x in s.stages:
        if not is_compute(x) or x.is_output or x.is_rolling or x.group is not None or \
                x.attach_type.name in ("Inline", "InlinedAlready"):
            continue
        for t in x.op.input_tensors:
            y = s.stage_map.get(t.op)
            if y is None or y is x or not is_compute(y) or y.is_output or y.is_rolling or \
                    y.group is not None:
                continue
            at_root = y.attach_type.name == "GroupRoot"
            at_x = y.attach_type.name == "Scope" and y.attach_stage is x
            if (at_root or at_x) and effective_consumers(s, y) == [x] and \
                    not _pinned_producers(s, x, y):
                out.append((x, y))
    return out


def _pinned_producers(s, x, y):
    """Whether a producer of X or Y (neither of them) is computed at a loop of some other
    stage: moving X and Y (to the root, then to the group's point) would leave that
    producer's loop without its consumer."""
    for st in (x, y):
        for t in st.op.input_tensors:
            z = s.stage_map.get(t.op)
            if z is None or z is x or z is y:
                continue
            if z.attach_type.name == "Scope" and z.attach_stage not in (x, y):
                return True
    return False


def maybe_group(d, s):
    """Sometimes one group of a stage and its only-consumed producer (module docstring)."""
    src = d.src
    if not src.flag(d.cfg.group_percent):
        return
    cands = _candidates(s)
    if not cands:
        return
    x, y = src.pick(cands)
    points = [(p, iv) for p, iv in legal_attach_points(s, x)
              if p is not y and not attached_inside(p, y)]
    xn, yn = d.tnames[id(x.origin_op)], d.tnames[id(y.origin_op)]
    name = f"g{len(s.groups)}"
    if x.attach_type.name == "Scope":     # create_group would do it, with a warning
        d.case.run(f"{d.stage_expr(x)}.compute_root()")
    d.case.run(f"{name} = s.create_group(outputs={xn}, inputs={yn}, include_inputs=True)")
    if points and src.flag(75):
        p, iv = src.pick(points)
        d.case.run(f"{name}.compute_at({d.stage_expr(p)}, {d.iv(p, iv)})")


__all__ = ["maybe_group"]
