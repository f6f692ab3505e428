"""Loop transforms and annotations drawn for one stage (through a ``ScheduleDrawer`` ``d``)."""
from __future__ import annotations

from .rolling import alias_through_layouts, rolling_producers

# factors of a nested split: most do not divide the small extents drawn (1-12, split by
# 2-8), and 9 and 16 exceed most pieces (the inner piece runs past its parent)
NESTED_FACTORS = [3, 5, 7, 9, 16]


def nested(d) -> bool:
    """Whether to draw a nested split here (``Config.nested_split_percent``; nothing is
    drawn when it is 0, so a seed's cases stay the same)."""
    pct = d.cfg.nested_split_percent
    return bool(pct) and d.src.flag(pct)


def split_again(d, st, piece_name, how="factor"):
    """Split the piece ``piece_name`` of ``st`` (a leaf, usually from a split) by a nested
    factor; returns the two new names."""
    o, i = d.new_ivs(st, ("o", "i"))
    d.case.run(f"{o}, {i} = {d.stage_expr(st)}.split({piece_name}, "
               f"{how}={d.src.pick(NESTED_FACTORS)})")
    d.bind_names(o, i)
    return o, i


def draw_loops(d, st):
    """Loop transforms of ``st`` (split, fuse, reorder, tile; first, sometimes, a split of a
    window axis so a stencil producer can roll per tile; with ``nested_split_percent``, a
    split of a split piece by a non-dividing or larger factor), then vectorize, unroll,
    parallel."""
    se = d.stage_expr(st)
    _split_window_axis(d, st, se)
    _transforms(d, st, se)
    if nested(d):
        _nested_split(d, st)
    _annotations(d, st, se)


def _nested_split(d, st):
    """Split a leaf twice (or, where a leaf already comes from a split, split that piece):
    the inner piece of a non-dividing split runs past its parent, which every guard on the
    path must catch."""
    leaves = list(st.leaf_iter_vars)
    if not leaves:
        return
    split_out = {id(x) for rel in st.relations if type(rel).__name__ == "Split"
                 for x in (rel.outer, rel.inner)}
    pieces = [iv for iv in leaves if id(iv) in split_out]
    if pieces:
        piece = d.iv(st, d.src.pick(pieces))
    else:
        o, piece = split_again(d, st, d.iv(st, d.src.pick(leaves)))
    split_again(d, st, piece, "nparts" if d.src.flag(25) else "factor")


def _split_window_axis(d, st, se):
    src, run = d.src, d.case.run
    # a consumer of a stencil/window producer: sometimes tile the window axis first, so
    # the producer can be computed per tile (and made a rolling buffer)
    windows = [a for _, axes in rolling_producers(d.ns["s"], st) for a in axes]
    if windows and src.flag(70):
        a = alias_through_layouts(st, src.pick(windows))
        if a is not None and any(x is a for x in st.leaf_iter_vars):
            name = d.iv(st, a)
            o, i = d.new_ivs(st, ("o", "i"))
            how = "nparts" if src.flag(20) else "factor"
            run(f"{o}, {i} = {se}.split({name}, {how}={src.pick([4, 2, 3, 5])})")
            d.bind_names(o, i)


def _transforms(d, st, se):
    src, run = d.src, d.case.run
    for _ in range(src.int(0, 4)):
        leaves = list(st.leaf_iter_vars)
        if not leaves:
            break
        action = src.pick(["split", "split", "fuse", "reorder", "tile"])
        if action == "split":
            iv = src.pick(leaves)
            name = d.iv(st, iv)
            amount = src.pick([2, 3, 4, 1, 5, 8, 16])
            o, i = d.new_ivs(st, ("o", "i"))
            how = "nparts" if src.flag(35) else "factor"
            # Halide's ShiftInwards tail (lowering keeps the guard where it is not legal)
            tail = ", tail='shift'" if how == "factor" and src.flag(30) else ""
            run(f"{o}, {i} = {se}.split({name}, {how}={amount}{tail})")
            d.bind_names(o, i)
        elif action == "fuse" and len(leaves) >= 2:
            k = src.int(0, len(leaves) - 2)
            a, b = d.iv(st, leaves[k]), d.iv(st, leaves[k + 1])
            (f,) = d.new_ivs(st, ("f",))
            run(f"{f} = {se}.fuse({a}, {b})")
            d.bind_names(f)
        elif action == "reorder" and len(leaves) >= 2:
            perm = list(leaves)
            # a few random swaps; choice 0 keeps the order
            for _ in range(src.int(0, len(perm))):
                a, b = src.int(0, len(perm) - 1), src.int(0, len(perm) - 1)
                perm[a], perm[b] = perm[b], perm[a]
            run(f"{se}.reorder({', '.join(d.iv(st, x) for x in perm)})")
        elif action == "tile" and len(leaves) >= 2:
            k = src.int(0, len(leaves) - 2)
            x, y = d.iv(st, leaves[k]), d.iv(st, leaves[k + 1])
            fx, fy = src.pick([2, 3, 4, 5]), src.pick([2, 3, 4, 5])
            names = d.new_ivs(st, ("xo", "yo", "xi", "yi"))
            run(f"{', '.join(names)} = {se}.tile({x}, {y}, {fx}, {fy})")
            d.bind_names(*names)


def _annotations(d, st, se):
    src, run = d.src, d.case.run
    leaves = list(st.leaf_iter_vars)
    if not leaves:
        return
    data = [iv for iv in leaves if iv.iter_type.name == "DataPar"]
    if data and src.flag(35):
        iv = leaves[-1] if src.int(0, 3) else src.pick(data)
        if iv.iter_type.name == "DataPar":
            run(f"{se}.vectorize({d.iv(st, iv)})")
    if src.flag(20):
        iv = src.pick(leaves)
        run(f"{se}.unroll({d.iv(st, iv)})")
    if data and src.flag(20):
        iv = data[0] if src.int(0, 2) else src.pick(data)
        run(f"{se}.parallel({d.iv(st, iv)})")


__all__ = ["draw_loops"]
