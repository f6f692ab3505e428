"""TVM's data layouts (``tvm.tir.layout`` / ``bijective_layout``): a layout string such as
``"NCHW16c"`` names primal axes in upper case and split-off sub-axes in lower case with their
factor; a ``BijectiveLayout`` converts indices and shapes between two layouts of the same
primal axes (``"NCHW"`` -> ``"NCHW16c"``: ``c`` is ``C % 16``, the new ``C`` is ``C // 16``).
"""
from __future__ import annotations

import re

from ..errors import TepadError
from .expr import IntImm, PrimExpr, convert, floordiv, floormod

_AXIS = re.compile(r"(\d*)([A-Za-z])")


def _ceildiv(a, b):
    if isinstance(a, int):
        return -(-a // b)
    return floordiv(a + (b - 1), b)


class Layout:
    """A layout string parsed into axes: ``Layout("NCHW16c")`` has the axes N, C, H, W, c, and
    ``factor_of("c")`` is 16. ``len``, ``in``, indexing and ``index_of`` work on axis
    names."""

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise TepadError(f"layout: expected a layout string such as 'NCHW16c', got "
                             f"{name!r}")
        self.name = name
        self.axes, self.factors = [], {}
        pos = 0
        for m in _AXIS.finditer(name):
            if m.start() != pos:
                break
            pos = m.end()
            digits, ax = m.groups()
            if ax in self.axes:
                raise TepadError(f"layout {name!r}: axis {ax} appears twice")
            if ax.islower():
                if not digits or int(digits) <= 0:
                    raise TepadError(f"layout {name!r}: the sub-axis {ax} needs a positive "
                                     f"factor before it (e.g. 16{ax})")
                self.factors[ax.upper()] = int(digits)
            elif digits:
                raise TepadError(f"layout {name!r}: a primal (upper-case) axis {ax} takes "
                                 "no factor")
            self.axes.append(ax)
        if pos != len(name):
            raise TepadError(f"layout {name!r}: cannot read {name[pos:]!r}; a layout is "
                             "upper-case axes and factored lower-case sub-axes, e.g. NCHW16c")
        for sub in self.factors:
            if sub not in self.axes:
                raise TepadError(f"layout {name!r}: the sub-axis {sub.lower()} has no primal "
                                 f"axis {sub}")

    def __len__(self):
        return len(self.axes)

    def __contains__(self, axis):
        return isinstance(axis, str) and axis in self.axes

    def __getitem__(self, k):
        return self.axes[k]

    def index_of(self, axis: str) -> int:
        """The position of ``axis`` in the layout, -1 when it has none."""
        return self.axes.index(axis) if axis in self.axes else -1

    def factor_of(self, axis: str) -> int:
        """The factor of the sub-axis of ``axis`` (either case), -1 when it is not split."""
        return self.factors.get(axis.upper(), -1)

    def __eq__(self, other):
        return isinstance(other, Layout) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"Layout({self.name})"


def layout(layout_str: str, dtype: str = "int32") -> Layout:
    """The Layout of ``layout_str`` (``dtype`` is accepted for TVM's signature)."""
    return Layout(layout_str)


class BijectiveLayout:
    """Conversion between two layouts of the same primal axes: ``forward_index`` /
    ``forward_shape`` go from ``src_layout`` to ``dst_layout``, ``backward_*`` back."""

    def __init__(self, src_layout, dst_layout):
        self.src_layout = src_layout if isinstance(src_layout, Layout) else Layout(src_layout)
        self.dst_layout = dst_layout if isinstance(dst_layout, Layout) else Layout(dst_layout)
        prim = lambda lay: sorted(a for a in lay.axes if a.isupper())  # noqa: E731
        if prim(self.src_layout) != prim(self.dst_layout):
            raise TepadError(f"bijective_layout: {self.src_layout.name} and "
                             f"{self.dst_layout.name} have different primal axes")

    @staticmethod
    def _primal(lay: Layout, values, shape: bool):
        out = {}
        for ax in lay.axes:
            if ax.isupper():
                v = values[lay.index_of(ax)]
                sub = lay.index_of(ax.lower())
                if sub >= 0:
                    inner = values[sub]
                    v = v * lay.factor_of(ax) if shape else v * lay.factor_of(ax) + inner
                out[ax] = v
        return out

    @staticmethod
    def _split(lay: Layout, primal: dict, shape: bool):
        res = []
        for ax in lay.axes:
            if ax.isupper():
                f = lay.factor_of(ax)
                v = primal[ax]
                res.append(v if f < 0 else (_ceildiv(v, f) if shape else floordiv(v, f)))
            else:
                f = lay.factor_of(ax)
                res.append(f if shape else floormod(primal[ax.upper()], f))
        return res

    def _convert(self, src, dst, values, shape):
        values = list(values)
        if len(values) != len(src):
            raise TepadError(f"bijective_layout: {src.name} has {len(src)} axes, got "
                             f"{len(values)} values")
        ints = all(isinstance(v, int) or isinstance(v, IntImm) for v in values)
        vals = [int(v) if ints else convert(v) for v in values]
        out = self._split(dst, self._primal(src, vals, shape), shape)
        if ints:
            out = [int(v.value) if isinstance(v, IntImm) else int(v) for v in out]
            return [IntImm(v, "int32") for v in out] if not shape else out
        return [v if isinstance(v, PrimExpr) else convert(v) for v in out]

    def forward_index(self, index):
        """The ``dst_layout`` index of the ``src_layout`` element at ``index``."""
        return self._convert(self.src_layout, self.dst_layout, index, False)

    def backward_index(self, index):
        """The ``src_layout`` index of the ``dst_layout`` element at ``index``."""
        return self._convert(self.dst_layout, self.src_layout, index, False)

    def forward_shape(self, shape):
        """The ``dst_layout`` shape of a ``src_layout`` shape (split axes rounded up)."""
        return self._convert(self.src_layout, self.dst_layout, shape, True)

    def backward_shape(self, shape):
        """The ``src_layout`` shape of a ``dst_layout`` shape."""
        return self._convert(self.dst_layout, self.src_layout, shape, True)

    def __repr__(self):
        return f"BijectiveLayout({self.src_layout.name}->{self.dst_layout.name})"


def bijective_layout(src_layout, dst_layout) -> BijectiveLayout:
    """The BijectiveLayout from ``src_layout`` to ``dst_layout`` (strings or Layouts)."""
    return BijectiveLayout(src_layout, dst_layout)


__all__ = ["Layout", "layout", "BijectiveLayout", "bijective_layout"]
