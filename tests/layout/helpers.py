"""Small builders shared by the layout tests."""
import tepad
from tepad import tir
from tepad.lower.passes.remove_assume import remove_assume
from tepad.lower.passes.remove_store_undef import remove_store_undef
from tepad.lower.passes.simplify import simplify
from tepad.lower.passes.storage_flatten import storage_flatten
from tepad.arith.index_map import IndexMap


def imap(fn, ndim):
    return IndexMap.from_func(fn, ndim)[0]


def func(params, body, maps=None, pads=None, seps=None):
    attrs = {"global_symbol": "main"}
    if maps:
        attrs["layout_transform_map"] = maps
    if pads:
        attrs["layout_pad_value"] = pads
    if seps:
        attrs["layout_axis_separators"] = seps
    return tir.PrimFunc([b.data for b in params], body, {b.data: b for b in params}, attrs)


def loops(vars_extents, body):
    for v, e in reversed(vars_extents):
        body = tir.For(v, 0, e, "serial", body)
    return body


def build(f):
    f = remove_store_undef(remove_assume(f))
    return tepad.build(simplify(storage_flatten(f)))


def collect(node, cls):
    out = []
    tir.post_order_visit(node, lambda n: out.append(n) if isinstance(n, cls) else None)
    return out
