"""TVM's layout strings ("NCHW", "NCHW16c", "OIHW16i8o") parsed: an upper-case letter is a
primal axis, digits followed by the same letter in lower case a split of it (the
lower-case axis of extent 16 inside the upper-case one). No topi imports, so that
``topi.utils`` and ``topi.nn`` can use it."""
from __future__ import annotations

import re

from ..errors import TepadError

_TOKEN = re.compile(r"(\d*)([A-Za-z])")


def parse_layout(layout: str) -> list:
    """``layout`` as ``[(letter, factor)]``: ``factor`` None for a primal (upper-case) axis,
    the int split factor for a sub-axis ("16c" -> ("c", 16)). A malformed layout (a digit
    before an upper-case letter, a sub-axis without a factor or without its primal axis, an
    axis twice) is a TepadError."""
    if not isinstance(layout, str):
        raise TepadError(f"layout must be a string such as 'NCHW16c', got {layout!r}")
    toks, pos = [], 0
    for m in _TOKEN.finditer(layout):
        if m.start() != pos:
            break
        pos = m.end()
        digits, letter = m.groups()
        if letter.isupper() != (digits == ""):
            raise TepadError(f"layout {layout!r}: {m.group(0)!r} is not an axis (upper-case "
                             "letters are axes, '<factor><lower-case letter>' sub-axes)")
        toks.append((letter, int(digits) if digits else None))
    letters = [t[0] for t in toks]
    if pos != len(layout) or len(set(letters)) != len(letters) or any(
            f is not None and ltr.upper() not in letters for ltr, f in toks):
        raise TepadError(f"layout {layout!r} is malformed (each axis once; a sub-axis needs "
                         "its upper-case axis)")
    return toks


def _token_names(layout):
    return [f"{f}{ltr}" if f else ltr for ltr, f in parse_layout(layout)]


def layout_permutation(src_layout: str, dst_layout: str, what="get_shape") -> list:
    """For each axis of ``dst_layout``, its position in ``src_layout`` (the two must name
    the same axes and sub-axes)."""
    src, dst = _token_names(src_layout), _token_names(dst_layout)
    if sorted(src) != sorted(dst):
        raise TepadError(f"{what}: cannot map {src_layout!r} to {dst_layout!r} (the two "
                         "layouts must have the same axes and sub-axes)")
    return [src.index(t) for t in dst]


__all__ = ["parse_layout", "layout_permutation"]
