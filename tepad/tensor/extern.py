"""``te.extern``: a stage whose body is a statement given by the user (TVM's ExternOp).

``te.extern(shape, inputs, fcompute)`` calls ``fcompute(ins, outs)`` with one ``tir.Buffer``
per input tensor and per output; the statement it returns (an ``ir_builder`` body, or a call
such as ``tir.call_packed`` / ``tir.call_extern`` over ``buf.data``) reads the inputs' buffers
and writes the outputs'. The op has no iteration axes: bound inference takes every input as
read whole and every output as written whole, and lowering emits the statement with each
buffer bound to the memory of its stage's tensor (``tepad.lower.extern_ops``).
"""
from __future__ import annotations

from ..errors import TepadError
from ..tir import dtype as dt
from ..tir.buffer import Buffer
from ..tir.expr import PrimExpr, convert
from ..tir.stmt import Evaluate, Stmt
from .tensor import Operation, Tensor


class ExternOp(Operation):
    """``body`` (a Stmt) over ``input_placeholders`` (one Buffer per tensor of ``inputs``) and
    ``output_placeholders`` (one Buffer per output)."""

    def __init__(self, name, tag, attrs, inputs, input_placeholders, output_placeholders, body):
        super().__init__(name, tag, attrs)
        self.inputs = list(inputs)
        self.input_placeholders = list(input_placeholders)
        self.output_placeholders = list(output_placeholders)
        self.body = body
        self.num_outputs = len(self.output_placeholders)
        self._outputs = [Tensor(self, k, b.shape, b.dtype)
                         for k, b in enumerate(self.output_placeholders)]

    @property
    def input_tensors(self) -> list:
        return list(self.inputs)

    @property
    def root_iter_vars(self) -> list:
        return []

    reduce_axis: list = []


def _shapes(shape, name):
    """The list of output shapes: one shape, or a list of shapes."""
    if isinstance(shape, (int, PrimExpr)):
        return [(shape,)]
    shape = list(shape)
    if shape and all(isinstance(s, (list, tuple)) for s in shape):
        return [tuple(s) for s in shape]
    if any(isinstance(s, (list, tuple)) for s in shape):
        raise TepadError(f"extern {name}: shape must be one shape or a list of shapes, got "
                         f"{shape!r}")
    return [tuple(shape)]


def extern(shape, inputs, fcompute, name="extern", dtype=None, in_buffers=None,
           out_buffers=None, tag="", attrs=None):
    """Output tensor(s) computed by the statement ``fcompute(ins, outs)`` (TVM's
    ``te.extern``).

    ``shape``: one shape or a list of shapes (one per output). ``inputs``: the tensors read.
    ``dtype``: one dtype or a list (default: the first input's dtype). ``in_buffers`` /
    ``out_buffers``: Buffers to pass instead of the ones declared here (same shape and dtype
    as the tensor). Returns a Tensor, or a list of them for several outputs."""
    shapes = _shapes(shape, name)
    inputs = list(inputs)
    for k, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise TepadError(f"extern {name}: input {k} must be a te.Tensor, got {t!r}")
    if dtype is None:
        if not inputs:
            raise TepadError(f"extern {name}: cannot infer the output dtype without inputs; "
                             "pass dtype=")
        dtype = inputs[0].dtype
    dtypes = list(dtype) if isinstance(dtype, (list, tuple)) else [dtype] * len(shapes)
    if len(dtypes) != len(shapes):
        raise TepadError(f"extern {name}: {len(dtypes)} dtypes for {len(shapes)} outputs")
    dtypes = [dt.canonical(d) for d in dtypes]
    ins = _buffers(in_buffers, [(t.shape, t.dtype, t.op.name) for t in inputs], name, "in")
    outs = _buffers(out_buffers, [(s, d, name) for s, d in zip(shapes, dtypes)], name, "out")
    body = fcompute(ins, outs)
    if isinstance(body, PrimExpr):
        body = Evaluate(body)
    if not isinstance(body, Stmt):
        raise TepadError(f"extern {name}: fcompute must return a statement (a tir.Stmt or a "
                         f"call expression), got {type(body).__name__}")
    op = ExternOp(name, tag, attrs, inputs, ins, outs, body)
    outputs = [op.output(k) for k in range(op.num_outputs)]
    return outputs[0] if len(outputs) == 1 else outputs


def _buffers(given, decls, name, what):
    if given is None:
        return [Buffer([convert(d) for d in shp], d, nm) for shp, d, nm in decls]
    given = list(given) if isinstance(given, (list, tuple)) else [given]
    if len(given) != len(decls):
        raise TepadError(f"extern {name}: {len(given)} {what}_buffers for {len(decls)} "
                         f"tensors")
    for b, (shp, d, _) in zip(given, decls):
        if not isinstance(b, Buffer) or b.dtype != d or len(b.shape) != len(shp):
            raise TepadError(f"extern {name}: {what}_buffers entry {b!r} must be a Buffer of "
                             f"dtype {d} with {len(shp)} dimensions")
    return given


__all__ = ["ExternOp", "extern"]
