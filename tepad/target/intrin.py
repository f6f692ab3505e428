"""TVM's ``tvm.target.intrin``: operator attributes registered from Python, and the intrinsic
lowering rules among them.

TVM keeps per-operator attributes in its ``Op`` registry: ``tvm.ir.register_op_attr(op_name,
key, value, level)``. tepad keeps them here, keyed by ``(op_name, key)``, for the attributes
a TE program sets itself. The one tepad acts on is ``"<target kind>.FLowerIntrinsic"``
(``tvm.ir.register_intrin_lowering``; TVM 0.6/0.7's ``tvm.target.register_intrin_rule`` and
``register_func("tvm.intrin.rule.<kind>.<name>")`` land here too): a function from a Call
of that operator to the expression that replaces it when building for that target kind
(``"default"`` for every kind), applied by ``lower.passes.apply_intrin_lowering``. (The registry sits here, under
``tir``, so that the lowering passes can read it; ``tepad.ir`` re-exports the TVM names.)

Levels follow TVM: a value registered at a higher level replaces the one there, a lower
level is ignored, the same level twice is an error.
"""
from __future__ import annotations

import threading

from ..errors import TepadError

DEFAULT_LEVEL = 10
_attrs: dict = {}          # (op_name, key) -> (value, level)
_version = [0]             # registrations so far (part of the rebuild caches' keys)
_lock = threading.Lock()


class CallEffectKind:
    """TVM's ``tvm.tir.CallEffectKind``: the effect an operator's calls have, the value of
    its ``"TCallEffectKind"`` attribute (recorded; tepad derives effects from the call kind)."""
    ExprAnnotation = 0
    Pure = 1
    ReadState = 2
    UpdateState = 3
    Opaque = UpdateState
    SpecialCallArg = 4
    Embedded = 5
    ControlJump = 6


def _op_name(op) -> str:
    name = getattr(op, "name", op)
    if not isinstance(name, str) or not name:
        raise TepadError(f"register_op_attr: the operator is named by a non-empty string such "
                         f"as 'tir.exp', not {op!r}")
    return name


def register_op_attr(op_name, attr_key, value=None, level=DEFAULT_LEVEL):
    """Set attribute ``attr_key`` of operator ``op_name`` to ``value`` at priority ``level``
    (TVM's ``tvm.ir.register_op_attr``); without ``value``, a decorator. Returns the value."""
    name = _op_name(op_name)
    if not isinstance(attr_key, str) or not attr_key:
        raise TepadError(f"register_op_attr({name!r}): the attribute key is a non-empty "
                         f"string such as 'cuda.FLowerIntrinsic', not {attr_key!r}")
    if not isinstance(level, int):
        raise TepadError(f"register_op_attr({name!r}, {attr_key!r}): level is an int, "
                         f"got {level!r}")

    def register(v):
        with _lock:
            old = _attrs.get((name, attr_key))
            if old is not None and old[1] == level:
                raise TepadError(f"attribute {attr_key!r} of operator {name!r} is already "
                                 f"registered at level {level}; register at a higher level "
                                 "to replace it")
            if old is None or old[1] < level:
                _attrs[(name, attr_key)] = (v, level)
                _version[0] += 1
        return v

    return register if value is None else register(value)


def reset_op_attr(op_name, attr_key) -> None:
    """Forget attribute ``attr_key`` of operator ``op_name`` (TVM's ``Op.reset_attr``)."""
    with _lock:
        _attrs.pop((_op_name(op_name), attr_key), None)
        _version[0] += 1


def get_op_attr(op_name, attr_key, default=None):
    """The value of attribute ``attr_key`` of operator ``op_name`` (``default`` if unset)."""
    entry = _attrs.get((_op_name(op_name), attr_key))
    return default if entry is None else entry[0]


def intrin_op_name(name: str) -> str:
    """A Call's operator as the registry names it: ``"exp"`` (TVM 0.6's calls) is
    ``"tir.exp"``."""
    return name if "." in name else "tir." + name


def register_intrin_lowering(op_name, target, *, f=None, level=DEFAULT_LEVEL):
    """Register ``f`` (Call -> PrimExpr) as how operator ``op_name`` is lowered when building
    for target kind ``target`` (``"default"``: every kind); TVM's
    ``tvm.ir.register_intrin_lowering``. Without ``f``, a decorator."""
    if not isinstance(target, str) or not target:
        raise TepadError(f"register_intrin_lowering({op_name!r}): target is a target kind "
                         f"name such as 'cuda', 'llvm' or 'default', not {target!r}")

    def register(fn):
        if not callable(fn):
            raise TepadError(f"register_intrin_lowering({op_name!r}, {target!r}): {fn!r} is "
                             "not callable")
        return register_op_attr(intrin_op_name(_op_name(op_name)),
                                f"{target}.FLowerIntrinsic", fn, level)

    return register if f is None else register(f)


def register_intrin_rule(target, intrin, f=None, override=False):
    """TVM 0.6/0.7's ``tvm.target.register_intrin_rule(target, "exp", f, override)``: the
    lowering rule of intrinsic ``intrin`` for target kind ``target``; ``override`` replaces
    one registered before (it is registered one level higher). Without ``f``, a decorator."""
    def register(fn):
        old = get_op_attr(intrin_op_name(intrin), f"{target}.FLowerIntrinsic")
        if old is not None and not override:
            raise TepadError(f"an intrinsic rule for {intrin!r} on {target!r} is already "
                             "registered; pass override=True to replace it")
        entry = _attrs.get((intrin_op_name(intrin), f"{target}.FLowerIntrinsic"))
        level = DEFAULT_LEVEL if entry is None else entry[1] + 1
        return register_intrin_lowering(intrin, target, f=fn, level=level)

    return register if f is None else register(f)


def lowering_rule(op_name: str, target_kind: str):
    """The lowering rule of operator ``op_name`` for ``target_kind`` (else the ``default``
    one), or None."""
    name = intrin_op_name(op_name)
    rule = get_op_attr(name, f"{target_kind}.FLowerIntrinsic")
    return rule if rule is not None else get_op_attr(name, "default.FLowerIntrinsic")


def rules_version() -> int:
    """How many attributes have been registered in this process: a build cached before a
    registration is not reused after it."""
    return _version[0]


def has_lowering_rules() -> bool:
    """Whether any lowering rule is registered (the pass skips its walk otherwise)."""
    return any(key.endswith(".FLowerIntrinsic") for _, key in _attrs)


__all__ = ["CallEffectKind", "register_op_attr", "reset_op_attr", "get_op_attr", "register_intrin_lowering",
           "register_intrin_rule", "lowering_rule", "has_lowering_rules", "intrin_op_name",
           "rules_version"]
