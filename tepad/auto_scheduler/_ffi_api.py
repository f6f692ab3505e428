"""The search-policy helpers TVM exposes to custom sketch rules through
``auto_scheduler._ffi_api`` (its C++ functions), over tepad's sketch state objects
(``state_view.SketchStateObject``)."""
from __future__ import annotations

from ..errors import TepadError
from ..tensor.tensor import ComputeOp
from ..tir.expr import ProducerLoad
from ..tir.functor import post_order_visit
from .state_view import SketchStateObject, StateView


class _ConsumerMap(dict):
    """``{consumer stage id: stage name}``; ``items()`` is an indexable list (TVM's Map)."""

    def items(self):
        return list(super().items())


def _obj(state):
    if isinstance(state, StateView):
        return state.state_object
    if not isinstance(state, SketchStateObject):
        raise TepadError(f"expects a sketch state object, got {type(state).__name__}")
    return state


def _consumers(obj, idx) -> list:
    """Stage ids reading stage ``idx``, looking through inlined readers to theirs."""
    dag = obj.dag
    out = []
    for op in dag.consumers[obj.stages[idx].name]:
        cid = obj.stage_index(op)
        if obj.is_inlined(cid):
            out.extend(c for c in _consumers(obj, cid) if c not in out)
        elif cid not in out:
            out.append(cid)
    return out


def SearchPolicyUtilsGetConsumers(task, state, stage_id):  # noqa: N802 - TVM's name
    """The stages consuming ``stage_id`` (through inlined stages), as a map from stage id."""
    obj = _obj(state)
    return _ConsumerMap((c, obj.stages[c].name) for c in _consumers(obj, int(stage_id)))


def _elementwise_reads(reader, producer) -> bool:
    """Every read of ``producer`` in ``reader``'s body is at ``reader``'s own axis
    variables, in order."""
    axes = [iv.var for iv in reader.axis]
    ok, found = [True], [False]

    def visit(n):
        if isinstance(n, ProducerLoad) and n.producer.op is producer:
            found[0] = True
            if len(n.indices) != len(axes) or \
                    any(not (i is v or getattr(i, "same_as", lambda _: False)(v))
                        for i, v in zip(n.indices, axes)):
                ok[0] = False

    for body in reader.body:
        post_order_visit(body, visit)
    return found[0] and ok[0]


def _shape(op):
    try:
        return [int(iv.dom.extent) for iv in op.axis]
    except (TypeError, ValueError):
        return None


def SearchPolicyUtilsIsElementwiseMatch(task, state, stage_id, target_id):  # noqa: N802
    """Whether stage ``target_id`` reads stage ``stage_id`` elementwise (the same constant
    shape, each read at the reader's own loop variables), looking through inlined stages
    between them."""
    obj = _obj(state)
    src, dst = obj.stages[int(stage_id)].op, obj.stages[int(target_id)].op
    if not (isinstance(src, ComputeOp) and isinstance(dst, ComputeOp)):
        return False
    shape = _shape(src)
    if shape is None or _shape(dst) != shape:
        return False

    def reaches(reader_idx, producer_op) -> bool:
        reader = obj.stages[reader_idx].op
        if _elementwise_reads(reader, producer_op):
            return True
        for t in reader.input_tensors:
            mid = obj.stage_index(t.op)
            if obj.is_inlined(mid) and _shape(t.op) == shape and \
                    _elementwise_reads(reader, t.op) and reaches(mid, producer_op):
                return True
        return False

    return reaches(int(target_id), src)
