"""``ModularSet`` (TVM's ``arith.ModularSet``): what an integer expression is known to be
modulo a constant, ``coeff * k + base``, for affine expressions."""
from __future__ import annotations

import math

from ..tir import expr as E
from .affine import affine_terms


class ModularSet:
    """The values ``coeff * k + base`` (``coeff`` 0: exactly ``base``)."""

    def __init__(self, coeff: int, base: int):
        self.coeff = int(coeff)
        self.base = int(base) % self.coeff if self.coeff else int(base)

    def __repr__(self):
        return f"ModularSet(coeff={self.coeff}, base={self.base})"


def modular_set(expr) -> ModularSet:
    """What ``expr`` is known to be modulo a constant: for an affine ``sum(c_k * v_k) + b``
    the gcd of the ``c_k`` and ``b`` modulo it; anything else is ``ModularSet(1, 0)``."""
    terms = affine_terms(E.convert(expr))
    if terms is None:
        return ModularSet(1, 0)
    coeffs, const = terms
    g = 0
    for c in coeffs.values():
        g = math.gcd(g, int(c))
    return ModularSet(g, const)


__all__ = ["ModularSet", "modular_set"]
