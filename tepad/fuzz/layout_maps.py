"""Drawn ``transform_layout`` calls: random injective index maps and pad values.

(The run-time side, physical arrays for such arguments, is ``layouts.py``.)
"""
from __future__ import annotations

from .attach_points import is_compute, scan_related


def layout_map(src, names, permute_only=False):
    """Text of a random injective layout mapping over ``names``; and its output count.

    Splits ``x // c, x % c`` (non-divisible extents give padding), offset splits
    ``(x + k) // c, (x + k) % c`` (padding at both ends), permutations, and sometimes a
    ``te.AXIS_SEPARATOR``. ``permute_only`` allows permutations only (``(None, 0)`` for one
    axis). Choice 0 is the plain split of the first axis."""
    outs = list(names)
    kinds = ["split", "offset_split", "split_permute"] + (["permute"] if len(names) > 1
                                                          else [])
    if permute_only:
        if len(names) < 2:
            return None, 0
        kinds = ["permute"]
    kind = src.pick(kinds)
    if kind != "permute":
        k = src.int(0, len(outs) - 1)
        c = src.pick([4, 3, 2, 5, 8])
        x = outs[k]
        if kind == "offset_split":
            x = f"({x} + {src.int(1, c - 1)})"
        hi, lo = f"{x} // {c}", f"{x} % {c}"
        where = src.int(0, 2)
        if where == 0:
            outs[k:k + 1] = [hi, lo]
        elif where == 1:             # outer part first (NCHWc-like)
            outs[k:k + 1] = [lo]
            outs.insert(0, hi)
        else:                        # inner part last
            outs[k:k + 1] = [hi]
            outs.append(lo)
    if kind in ("permute", "split_permute") and len(outs) > 1:
        a = src.int(0, len(outs) - 1)
        b = (a + 1 + src.int(0, len(outs) - 2)) % len(outs)
        outs[a], outs[b] = outs[b], outs[a]
    n_out = len(outs)
    if n_out >= 2 and src.flag(25):
        outs.insert(src.int(1, n_out - 1), "te.AXIS_SEPARATOR")
    return f"lambda {', '.join(names)}: [{', '.join(outs)}]", n_out


def pad_text(src, dtype):
    """``""`` (no pad value: padding never read), or a ``, pad_value=...`` argument: a
    constant, or ``tir.undef``."""
    r = src.int(0, 5)
    if r <= 2:
        return ""                                  # None: the padding is never read
    if r <= 4:
        if dtype.startswith("float"):
            return f", pad_value={src.pick(['0.0', '-1.5', '3.0'])}"
        return f", pad_value={src.pick(['0', '-1', '7'])}"
    return f", pad_value=lambda *ix: tir.undef({dtype!r})"


def maybe_layout(d, st):
    """Sometimes one or two transform_layout calls on ``st`` (placeholder or compute)."""
    src = d.src
    if not src.flag(35):
        return
    tname = d.tnames[id(st.origin_op)]
    t = d.ns[tname]
    ndim = len(t.shape)
    if ndim == 0 or getattr(st, "relations", None):
        return              # (an earlier illegal step may already have split an axis)
    if scan_related(st):
        return              # refused by design: the scan's state is one shared buffer
    se = d.stage_expr(st)
    symbolic = any(isinstance(b, str) for b in d.case.bases.values())
    # A splitting layout on a symbolic *argument* can leave a size variable only inside
    # derived dimensions ((n + 3) // 4), which no array can bind: build refuses that with
    # a TepadError by design, so arguments get permutations only when sizes are symbolic.
    permute_only = symbolic and (st.is_output or not is_compute(st))
    names = ["i", "j", "k", "l"][:ndim]
    text, n_out = layout_map(src, names, permute_only)
    if text is None:
        return
    pad = pad_text(src, t.dtype)
    d.case.run(f"{se}.transform_layout({text}{pad})")
    if src.flag(20):        # a second transform, over the first one's output indices
        text, _ = layout_map(src, [f"x{k}" for k in range(n_out)], permute_only)
        if text is not None:
            d.case.run(f"{se}.transform_layout({text}{pad_text(src, t.dtype)})")


__all__ = ["layout_map", "pad_text", "maybe_layout"]
