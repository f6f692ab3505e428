"""``topi.einsum``: numpy's Einstein summation over TE tensors, as one compute stage.

The subscripts follow numpy: letters label axes, a repeated letter within an operand takes
its diagonal, ``...`` stands for the leading broadcast axes (right-aligned across
operands), and without ``->`` the output is the broadcast axes followed by the letters that
appear once, in alphabetical order. Axes that share a letter broadcast when one extent is
1. Letters missing from the output are summed over.

Symbolic extents broadcast at run time as numpy does: when a letter labels axes of
different symbolic extents (``K`` and ``K2``), its extent is ``max(K, K2)`` and each operand
reads index 0 along its axis when that axis's extent is 1 at run time."""
from __future__ import annotations

from ..errors import TepadError
from ..tensor import Tensor, compute, reduce_axis
from ..tensor import operation as te_op
from ..tir.expr import IntImm, max_expr, select
from ..tir.structural import structural_equal

_ELLIPSIS_LABELS = "0123456789"


def _is_one(e):
    return isinstance(e, IntImm) and e.value == 1


def _parse(subscripts, operands):
    spec = subscripts.replace(" ", "")
    lhs, arrow, rhs = spec.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise TepadError(f"topi.einsum: {subscripts!r} has {len(terms)} operand subscripts "
                         f"but {len(operands)} tensors were given")
    labels, n_ell = [], 0
    for term, t in zip(terms, operands):
        body = term.replace("...", "")
        if not all(c.isalpha() for c in body) or term.count("...") > 1:
            raise TepadError(f"topi.einsum: {term!r} in {subscripts!r} is not a subscript "
                             "(letters and at most one '...')")
        ell = len(t.shape) - len(body)
        if ell < 0 or (ell and "..." not in term):
            raise TepadError(f"topi.einsum: {term!r} names {len(body)} axes but "
                             f"{t.name} has {len(t.shape)}")
        labels.append((term, ell))
        n_ell = max(n_ell, ell)
    if n_ell > len(_ELLIPSIS_LABELS):
        raise TepadError("topi.einsum: at most 10 axes may stand behind '...'")
    ell_labels = _ELLIPSIS_LABELS[:n_ell]
    expanded = [term.replace("...", ell_labels[n_ell - ell:]) for term, ell in labels]
    if arrow:
        if not all(c.isalpha() for c in rhs.replace("...", "")):
            raise TepadError(f"topi.einsum: output {rhs!r} is not a subscript")
        out = rhs.replace("...", ell_labels)
    else:
        letters = "".join(expanded)
        out = ell_labels + "".join(sorted(c for c in set(letters)
                                          if c.isalpha() and letters.count(c) == 1))
    return expanded, out


def _index(i, e, full):
    """The index into an operand axis of extent ``e`` for output/summed index ``i`` of the
    letter's extent ``full``: 0 for an axis of extent 1 that broadcasts, a run-time choice for
    a symbolic extent that differs from ``full`` (it may be 1 at run time), else ``i``."""
    if _is_one(e):
        return 0 if not _is_one(full) else i
    if isinstance(e, IntImm) or structural_equal(e, full):
        return i
    return select(e == 1, 0, i)


def einsum(subscripts, *operand):
    """numpy's ``einsum(subscripts, *operand)`` (see the module doc); returns a tensor of
    the first operand's dtype, its stage ``T_einsum`` (tag ``einsum``)."""
    ops = list(operand[0]) if len(operand) == 1 and isinstance(operand[0], (list, tuple)) \
        else list(operand)
    if not ops or not all(isinstance(t, Tensor) for t in ops):
        raise TepadError(f"topi.einsum takes te.Tensors after the subscripts, got {ops!r}")
    terms, out = _parse(subscripts, ops)
    extent = {}
    for term, t in zip(terms, ops):
        for c, e in zip(term, t.shape):
            if c not in extent or _is_one(extent[c]):
                extent[c] = e
            elif isinstance(e, IntImm) and isinstance(extent[c], IntImm):
                if e.value not in (1, extent[c].value):
                    what = "a '...' axis" if c in _ELLIPSIS_LABELS else f"axis {c!r}"
                    raise TepadError(f"topi.einsum: {what} of {subscripts!r} has extents "
                                     f"{extent[c].value} and {e.value} (of {t.name}), "
                                     "which do not broadcast")
            elif not _is_one(e) and not structural_equal(e, extent[c]):
                extent[c] = max_expr(extent[c], e)
    for c in out:
        if c not in extent:
            raise TepadError(f"topi.einsum: output letter {c!r} of {subscripts!r} labels no "
                             "input axis")
    summed = [c for c in extent if c not in out]

    def body(*idx):
        rs = {c: reduce_axis((0, extent[c]), name=f"k_{c}") for c in summed}
        var = dict(zip(out, idx))
        var.update(rs)
        prod = None
        for term, t in zip(terms, ops):
            at = tuple(_index(var[c], e, extent[c]) for c, e in zip(term, t.shape))
            v = t[at]
            prod = v if prod is None else prod * v
        return te_op.sum(prod, axis=list(rs.values())) if rs else prod
    return compute(tuple(extent[c] for c in out), body, name="T_einsum", tag="einsum")


__all__ = ["einsum"]
