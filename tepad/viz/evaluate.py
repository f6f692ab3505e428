"""Evaluate integer/boolean tir expressions on numpy arrays (for pictures and reports).

``evaluate(expr, env)`` with ``env = {Var: int or np.ndarray}``; arrays broadcast. Raises
``Unbound`` for a variable missing from ``env`` and ``Unsupported`` for anything that is not
index arithmetic (loads, calls other than ``if_then_else`` / ``likely``).
"""
from __future__ import annotations

import numpy as np

from ..tir import expr as E


class Unbound(LookupError):
    def __init__(self, var):
        super().__init__(f"free variable {var.name}")
        self.var = var


class Unsupported(TypeError):
    pass


_BIN = {
    E.Add: np.add, E.Sub: np.subtract, E.Mul: np.multiply,
    E.FloorDiv: np.floor_divide, E.FloorMod: np.mod,
    E.Min: np.minimum, E.Max: np.maximum,
    E.EQ: np.equal, E.NE: np.not_equal, E.LT: np.less, E.LE: np.less_equal,
    E.GT: np.greater, E.GE: np.greater_equal,
    E.And: np.logical_and, E.Or: np.logical_or,
}


def evaluate(e, env):
    if isinstance(e, (int, np.integer)):
        return np.int64(e)
    if isinstance(e, E.IntImm):
        return np.int64(e.value) if e.dtype != "bool" else np.bool_(e.value)
    if isinstance(e, E.FloatImm):
        return np.float64(e.value)
    if isinstance(e, E.Var):
        if e not in env:
            raise Unbound(e)
        return env[e]
    if isinstance(e, E.Cast):
        return evaluate(e.value, env)
    fn = _BIN.get(type(e))
    if fn is not None:
        return fn(evaluate(e.a, env), evaluate(e.b, env))
    if isinstance(e, E.Div):
        a, b = evaluate(e.a, env), evaluate(e.b, env)
        return np.trunc(np.true_divide(a, b)).astype(np.int64)
    if isinstance(e, E.Mod):
        return np.fmod(evaluate(e.a, env), evaluate(e.b, env))
    if isinstance(e, E.Not):
        return np.logical_not(evaluate(e.a, env))
    if isinstance(e, E.Select):
        return np.where(evaluate(e.condition, env), evaluate(e.true_value, env),
                        evaluate(e.false_value, env))
    if isinstance(e, E.Call) and e.op in ("tir.if_then_else", "if_then_else") and \
            len(e.args) == 3:
        return np.where(evaluate(e.args[0], env), evaluate(e.args[1], env),
                        evaluate(e.args[2], env))
    if isinstance(e, E.Call) and e.op in ("tir.likely", "likely") and len(e.args) == 1:
        return evaluate(e.args[0], env)
    raise Unsupported(f"cannot evaluate {type(e).__name__} {e!r} numerically")


def evaluate_int(e, env) -> int:
    v = evaluate(e, env)
    if np.ndim(v):
        raise Unsupported(f"{e!r} is not a scalar under the given bindings")
    return int(v)


__all__ = ["evaluate", "evaluate_int", "Unbound", "Unsupported"]
