"""Argument helpers shared by the topi.nn operators (TVM's ``topi.nn.utils``)."""
from __future__ import annotations

from ...errors import TepadError
from ...tir.expr import IntImm


def ints(v, n, what):
    """``v`` (an int or ``n`` ints) as a list of ``n`` ints."""
    if isinstance(v, int):
        return [v] * n
    v = [x.value if isinstance(x, IntImm) else x for x in v]
    if len(v) != n or not all(isinstance(x, int) for x in v):
        raise TepadError(f"{what} must be an int or {n} ints, got {v!r}")
    return v


def const_extents(shape, what, names):
    """The extents of ``shape`` as ints; a symbolic one is a TepadError naming its axis."""
    out = []
    for s, nm in zip(shape, names):
        if isinstance(s, int):
            out.append(s)
        elif isinstance(s, IntImm):
            out.append(s.value)
        else:
            raise TepadError(f"{what}: extent {nm} must be a constant, got {s}")
    return out


def get_pad_tuple(padding, kernel):
    """TVM's padding forms for 2-D windows as ``(top, left, bottom, right)``: an int (all
    sides), 2 ints (height, width: both sides), 4 ints (top, left, bottom, right), or the
    strings "VALID" (none) and "SAME" (output size = input size at stride 1; the odd cell
    goes before, as TVM puts it)."""
    kh, kw = ints(kernel, 2, "get_pad_tuple: kernel")
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return 0, 0, 0, 0
        if padding.upper() == "SAME":
            ph, pw = kh - 1, kw - 1
            return (ph + 1) // 2, (pw + 1) // 2, ph // 2, pw // 2
        raise TepadError(f"padding {padding!r}: the strings are 'SAME' and 'VALID'")
    if isinstance(padding, int):
        return padding, padding, padding, padding
    p = ints(padding, len(padding), "padding")
    if len(p) == 2:
        return p[0], p[1], p[0], p[1]
    if len(p) == 4:
        return tuple(p)
    raise TepadError(f"padding must be an int, 2 or 4 ints, 'SAME' or 'VALID'; got {padding!r}")


def get_pad_tuple1d(padding, kernel):
    """1-D windows: ``(left, right)`` from an int, 1 or 2 ints, "SAME" or "VALID"."""
    (k,) = ints(kernel, 1, "get_pad_tuple1d: kernel")
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return 0, 0
        if padding.upper() == "SAME":
            return k // 2, (k - 1) // 2
        raise TepadError(f"padding {padding!r}: the strings are 'SAME' and 'VALID'")
    if isinstance(padding, int):
        return padding, padding
    p = ints(padding, len(padding), "padding")
    if len(p) == 1:
        return p[0], p[0]
    if len(p) == 2:
        return tuple(p)
    raise TepadError(f"1-D padding must be an int or 2 ints; got {padding!r}")


def get_pad_tuple3d(padding, kernel):
    """3-D windows: ``(front, top, left, back, bottom, right)`` from an int (all sides), 3
    ints (depth, height, width: both sides), 6 ints (as returned), "VALID" or "SAME" (the
    odd cell before)."""
    k = ints(kernel, 3, "get_pad_tuple3d: kernel")
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return (0,) * 6
        if padding.upper() == "SAME":
            full = [x - 1 for x in k]
            return tuple((f + 1) // 2 for f in full) + tuple(f // 2 for f in full)
        raise TepadError(f"padding {padding!r}: the strings are 'SAME' and 'VALID'")
    if isinstance(padding, int):
        return (padding,) * 6
    p = ints(padding, len(padding), "padding")
    if len(p) == 3:
        return tuple(p) * 2
    if len(p) == 6:
        return tuple(p)
    raise TepadError(f"3-D padding must be an int, 3 or 6 ints, 'SAME' or 'VALID'; got "
                     f"{padding!r}")


__all__ = ["ints", "const_extents", "get_pad_tuple", "get_pad_tuple1d", "get_pad_tuple3d"]
