"""Intrinsic lowering rules per target kind and operator attributes (TVM's
``tvm.ir.register_intrin_lowering`` / ``register_op_attr``, TVM 0.6's
``tvm.register_intrin_rule``).

A rule is a function ``f(call) -> PrimExpr`` registered for an operator (``"tir.exp"``) and
a target kind (``"cuda"``, ``"opencl"``, ``"llvm"``, or ``"default"`` for every kind) at a
``level``; for each (kind, operator) the rule of the highest level is kept (a later
registration at the same level replaces the earlier). ``apply_intrin_rules(func, kind)``
(``tepad.lower.passes.apply_intrin_rules``) rewrites every call that has a rule for
``kind`` (else a ``"default"`` one) to what the rule returns, and lowers that result again (a
rule may return another intrinsic with rules of its own). A rule that returns its argument
unchanged leaves the call to the code generator, which has its own mapping (libdevice,
``__expf``, LLVM intrinsics).

This module is the table only (target kinds are named here, in ``tepad.target``); the GPU
backends apply the rules of their kind before code generation, so a rule changes the PTX, the
emulated code and the printed source alike.
"""
from __future__ import annotations

import enum

from ..errors import TepadError

_RULES: dict = {}            # (kind, op name) -> (level, f)
_ATTRS: dict = {}            # (op name, attr key) -> (level, value)
_version = [0]               # registrations so far (part of the rebuild caches' keys)


def rules_version() -> int:
    """How many rules have been registered in this process: a build cached before a
    registration is not reused after it."""
    return _version[0]


class CallEffectKind(enum.IntEnum):
    """TVM's ``tir.CallEffectKind``: what a call may do besides computing its value."""
    ExprAnnotation = 0
    Pure = 1
    ReadState = 2
    UpdateState = 3
    Opaque = 4
    Embedded = 5
    ControlJump = 6


def op_name(name) -> str:
    """``name`` as a full operator name: ``"exp"`` -> ``"tir.exp"``."""
    name = str(name)
    return name if "." in name else "tir." + name


def _check(op, what):
    if not isinstance(op, str) or not op:
        raise TepadError(f"{what}: the operator is named by a string such as 'tir.exp', got "
                         f"{op!r}")


def register_intrin_lowering(op_name_, target="default", *, f=None, level=10):
    """Register ``f`` as the lowering of operator ``op_name_`` (``"tir.exp"``) for target kind
    ``target`` (``"cuda"``, ``"opencl"``, ``"llvm"``, ``"default"``) at ``level``; without
    ``f``, a decorator. Returns ``f``."""
    _check(op_name_, "register_intrin_lowering")
    kind = str(target).split()[0] if str(target).strip() else ""
    if not kind:
        raise TepadError("register_intrin_lowering: target is a target kind such as 'cuda', "
                         "'opencl', 'llvm' or 'default'")

    def register(fn):
        if not callable(fn):
            raise TepadError(f"register_intrin_lowering({op_name_!r}, {kind!r}): f must be a "
                             f"function of the Call, got {type(fn).__name__}")
        key = (kind, op_name(op_name_))
        old = _RULES.get(key)
        if old is None or level >= old[0]:
            _RULES[key] = (level, fn)
            _version[0] += 1
        return fn

    return register if f is None else register(f)


def register_intrin_rule(target, intrin, f=None, override=False):
    """TVM 0.6's ``tvm.register_intrin_rule(target, "exp", f, override)``: the rule of
    ``intrin`` for ``target``; ``override`` replaces a rule registered before (it is kept
    otherwise)."""
    _check(intrin, "register_intrin_rule")

    def register(fn):
        key = (str(target), op_name(intrin))
        if key in _RULES and not override:
            raise TepadError(f"register_intrin_rule: {target}.{intrin} already has a rule; "
                             "pass override=True to replace it")
        _RULES[key] = (_RULES.get(key, (0,))[0] + 1 if override else 10, fn)
        _version[0] += 1
        return fn

    return register if f is None else register(f)


def register_op_attr(op_name_, attr_key, value=None, level=10):
    """TVM's ``register_op_attr``: set attribute ``attr_key`` of operator ``op_name_`` (such
    as ``"TCallEffectKind"``); without ``value``, a decorator that registers the function it
    decorates."""
    _check(op_name_, "register_op_attr")

    def register(v):
        key = (op_name(op_name_), str(attr_key))
        old = _ATTRS.get(key)
        if old is None or level >= old[0]:
            _ATTRS[key] = (level, v)
        return v

    return register if value is None else register(value)


def op_attr(name, attr_key, default=None):
    """The attribute ``attr_key`` of operator ``name`` registered with ``register_op_attr``
    (``register_intrin_lowering`` rules read as ``"<kind>.FLowerIntrinsic"``)."""
    kind, dot, rest = str(attr_key).partition(".")
    if dot and rest == "FLowerIntrinsic":
        got = _RULES.get((kind, op_name(name)))
        return got[1] if got else default
    got = _ATTRS.get((op_name(name), str(attr_key)))
    return got[1] if got else default


def rules_for(kind: str) -> dict:
    """``{op name: f}``: the rules that apply to target kind ``kind`` (its own, else the
    ``"default"`` ones)."""
    out = {op: f for (k, op), (_, f) in _RULES.items() if k == "default"}
    out.update({op: f for (k, op), (_, f) in _RULES.items() if k == kind})
    return out


__all__ = ["CallEffectKind", "register_intrin_lowering", "register_intrin_rule",
           "register_op_attr", "op_attr", "rules_for", "op_name", "rules_version"]
