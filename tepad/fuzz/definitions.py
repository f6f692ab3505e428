"""Drawing the definitions of a case: size bases, placeholders, then compute stages (ops.py).

Each definition is a line of Python executed at once in ``case.ns`` (see ``Case.run``); the
namespace starts with ``tepad``, ``te``, ``tir`` and ``np``, as the reproducer's header does.
"""
from __future__ import annotations

import numpy as np

import tepad
from tepad import te, tir

from .case import Case, Config, GenerationRefused, Tens
from .ops import OPS, op_elementwise, op_scan
from .sources import Source

_BASES = ("H", "W", "K")
_SYM = {"H": "n", "W": "m", "K": "p"}


def exec_namespace() -> dict:
    """A fresh namespace for a case's lines, with the names the reproducer imports."""
    return {"tepad": tepad, "te": te, "tir": tir, "np": np}


class DefinitionDrawer:
    """Draws a case's tensors into ``self.case``; ``count`` numbers the fresh names."""

    def __init__(self, src: Source, cfg: Config):
        self.src = src
        self.cfg = cfg
        self.case = Case()
        self.count = 0
        self.case.ns.update(exec_namespace())

    # -- helpers -----------------------------------------------------------------------------
    def extent_text(self, base, off):
        """One extent as code text: the constant, or the size var minus ``-off``."""
        b = self.case.bases[base]
        if isinstance(b, str):
            return b if off == 0 else f"{b} - {-off}"
        return str(b + off)

    def shape_text(self, dims):
        """A shape tuple as code text."""
        return "(" + ", ".join(self.extent_text(b, o) for b, o in dims) + \
            ("," if len(dims) == 1 else "") + ")"

    def min_extent(self, base, off):
        """Smallest extent this dim can have at run time (symbolic bases >= their need)."""
        b = self.case.bases[base]
        return None if isinstance(b, str) else b + off

    def fits(self, dims):
        """Is every extent of ``dims`` at least 1 (symbolic: not shrunk by more than 6)?"""
        for b, o in dims:
            m = self.min_extent(b, o)
            if m is not None and m < 1:
                return False
            if m is None and o < -6:
                return False
        return True

    def fresh(self, prefix="T"):
        """A new tensor name: ``prefix`` and the next count."""
        name = f"{prefix}{self.count}"
        self.count += 1
        return name

    def const(self, dtype, lo=-3, hi=3):
        """A constant of ``dtype`` in [lo, hi] (floats sometimes + 0.5), as code text."""
        c = self.src.int(lo, hi)
        if dtype.startswith("float"):
            return f"{c}.5" if self.src.flag(30) else f"{float(c)}"
        return str(c)

    # -- definitions -------------------------------------------------------------------------
    def define(self):
        """Draw the size bases, 1 to ``max_inputs`` placeholders and 1 to ``max_stages``
        compute stages (at least one stage, even when every drawn op was refused)."""
        dtype = self._bases_and_dtype()
        self._placeholders(dtype)
        self._stages()

    def _bases_and_dtype(self):
        cfg, src, case = self.cfg, self.src, self.case
        symbolic = src.flag(cfg.symbolic_percent)
        for b in _BASES:
            if symbolic:
                case.bases[b] = _SYM[b]
            else:
                case.bases[b] = src.int(1, cfg.max_base)
        if symbolic:
            for b in _BASES:
                case.run(f"{_SYM[b]} = te.var({_SYM[b]!r})")
        return src.pick(cfg.dtypes)

    def _placeholders(self, dtype):
        cfg, src, case = self.cfg, self.src, self.case
        n_inputs = src.int(1, cfg.max_inputs)
        shapes = [[("H", 0), ("W", 0)], [("W", 0), ("K", 0)], [("H", 0)], [("W", 0)],
                  [("K", 0)], [("H", 0), ("W", 0)]]
        for k in range(n_inputs):
            dims = shapes[0] if k == 0 else src.pick(shapes)
            name = "ABC"[k]
            d2 = dtype if k == 0 or not src.flag(20) else src.pick(cfg.dtypes)
            case.run(f"{name} = te.placeholder({self.shape_text(dims)}, {d2!r}, name={name!r})")
            t = Tens(name, list(dims), d2, placeholder=True)
            case.tensors.append(t)
            case.placeholders.append(t)

    def _stages(self):
        cfg, case = self.cfg, self.case
        n_stages = self.src.int(1, cfg.max_stages)
        made = 0
        attempts = 0
        while made < n_stages and attempts < 4 * n_stages + 4:
            attempts += 1
            try:
                self.add_op()
                made += 1
            except GenerationRefused:
                continue
        if made == 0:
            op_elementwise(self, case.tensors[0])

    def add_op(self):
        """Append one drawn op; raises ``GenerationRefused`` when it does not fit."""
        if self.cfg.scan_percent and self.src.flag(self.cfg.scan_percent):
            op_scan(self, self.src.pick(self.case.tensors))
            return
        kind = self.src.pick(OPS)
        # recent tensors are likelier sources (deeper DAGs)
        ts = self.case.tensors
        x = ts[-1 - self.src.int(0, len(ts) - 1)] if self.src.flag(60) else self.src.pick(ts)
        OPS[kind](self, x)

    def emit(self, t: Tens, body_line: str):
        """Run the definition ``body_line`` of ``t`` and keep ``t``, if its extents fit."""
        if not self.fits(t.dims):
            raise GenerationRefused()
        self.case.run(body_line)
        self.case.tensors.append(t)

    def idx(self, ndim):
        """Index variable names for ``ndim`` (at most 2) dimensions."""
        return ["i", "j"][:ndim] if ndim <= 2 else None


__all__ = ["DefinitionDrawer", "exec_namespace"]
