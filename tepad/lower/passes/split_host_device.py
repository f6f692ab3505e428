"""Split one lowered GPU function into a host part and device kernels (TVM's SplitHostDevice).

Input: the lowered GPU PrimFunc described in docs (GPU.md: launch attributes
``AttrStmt(thread IterVar, "thread_extent", extent)``, flat buffers, scoped allocations).
Each *outermost* launch region (a ``thread_extent`` attribute not inside another one) becomes
one kernel PrimFunc; everything outside the launch regions (lets, asserts, global
allocations, loops and ifs around launches) is host code.

Guarantees of ``split_host_device(func)``:

* ``kernels[k]`` is a PrimFunc named ``<name>_kernel`` (``<name>_kernel_1``, ... when there
  are several), whose body is the launch region unchanged (the launch attributes stay, so the
  device code generator binds the thread indices from them), and whose params are, in order:
  the buffers the region reads or writes that it does not allocate itself (by data var, in
  the order of ``func.params`` first, then of first use), then the scalar vars it uses that
  are defined outside it (first use order). Buffers are in ``buffer_map``.
* ``launches[name]`` says how the host launches kernel ``name``: ``grid`` and ``block``
  (three expressions each, x y z, 1 where a tag is absent), ``dyn_shared`` (bytes of
  dynamically sized shared memory, an expression; 0 when none) and ``args`` (the host values
  passed for the kernel's params: buffer data vars and scalar vars of the host).
  Launch dimensions use only host variables; otherwise a TepadError names the tag.
* ``host`` is ``func`` with each launch region replaced by
  ``Evaluate(Call("int32", LAUNCH_OP, [StringImm(name)]))``.
"""
from __future__ import annotations

from ...errors import TepadError
from ... import tir
from ...tir import dtype as dt
from ...tir.free_vars import FreeVars
from ...tir.storage_scope import storage_rank
from ...tir.launch import (LAUNCH_OP, TAGS, THREAD_EXTENT, Launch, SplitFunc, is_launch,
                           launch_tag)

class _Uses(FreeVars):
    """Vars (``vars``) and buffers (``buffers``) a statement uses without defining them, in
    first-use order; the launch attributes met (tag -> extent) and the shared allocations of
    non-constant size."""

    def __init__(self):
        super().__init__()
        self.vars = self.order
        self.buffers = []
        self.extents: dict = {}
        self.dyn_shared = []

    def _use_buffer(self, buf):
        if buf.data not in self.defined and buf.data not in self.seen:
            self.seen.add(buf.data)
            self.buffers.append(buf)

    def visit_Allocate(self, s):
        if storage_rank(s.annotations.get("scope", "")) == "shared" and \
                not all(isinstance(e, tir.IntImm) for e in s.extents):
            self.dyn_shared.append(s)
        super().visit_Allocate(s)

    def visit_AttrStmt(self, s):
        if s.attr_key == THREAD_EXTENT:
            tag = launch_tag(s)
            self.extents.setdefault(tag, s.value)
            self.visit(s.value)
            self.defined.add(s.node.var)
        self.visit(s.body)


def _dim_of(extents: dict, prefix: str) -> tuple:
    one = tir.IntImm(1, "int32")
    return tuple(extents.get(f"{prefix}.{a}", one) for a in "xyz")


def _kernel_of(region, name: str, func: tir.PrimFunc):
    """(kernel PrimFunc, Launch) for one outermost launch region."""
    uses = _Uses()
    uses.visit(region)
    inner = set(uses.defined)
    for tag, ext in uses.extents.items():
        if tag not in TAGS:
            raise TepadError(f"kernel {name}: launch attribute {tag!r} is not a GPU thread "
                             f"tag; use one of {', '.join(TAGS)}")
        bad = [v.name for v in tir.collect_vars(ext) if v in inner]
        if bad:
            raise TepadError(f"kernel {name}: the extent {ext} of {tag} depends on "
                             f"{', '.join(bad)}, defined inside the kernel; launch dimensions "
                             "must be computable on the host")
    order = {p: k for k, p in enumerate(func.params)}
    bufs = sorted(uses.buffers, key=lambda b: order.get(b.data, len(order)))
    params, buffer_map, args = [], {}, []
    for b in bufs:
        params.append(b.data)
        buffer_map[b.data] = b
        args.append(b.data)
    data_vars = {b.data for b in bufs}
    for v in uses.vars:
        if v in data_vars:
            continue
        params.append(v)
        args.append(v)
    dyn = tir.IntImm(0, "int64")
    if len(uses.dyn_shared) > 1:
        raise TepadError(f"kernel {name}: {len(uses.dyn_shared)} shared allocations of "
                         "non-constant size; at most one can be dynamic shared memory")
    if uses.dyn_shared:
        a = uses.dyn_shared[0]
        size = tir.IntImm(dt.parse(a.dtype).bytes * dt.lanes(a.dtype), "int64")
        for e in a.extents:
            size = size * tir.Cast("int64", e) if e.dtype != "int64" else size * e
        bad = [v.name for v in tir.collect_vars(size) if v in inner]
        if bad:
            raise TepadError(f"kernel {name}: the size of shared buffer {a.buffer_var.name} "
                             f"depends on {', '.join(bad)}, defined inside the kernel")
        dyn = size
    kernel = tir.PrimFunc(params, region, buffer_map,
                          {"global_symbol": name, "tepad.device_kernel": True})
    launch = Launch(name, _dim_of(uses.extents, "blockIdx"), _dim_of(uses.extents, "threadIdx"),
                    dyn, tuple(args))
    return kernel, launch


class _Splitter(tir.Mutator):
    def __init__(self, func):
        super().__init__()
        self.func = func
        self.kernels, self.launches = [], {}

    def _name(self):
        base = f"{self.func.name}_kernel"
        return base if not self.kernels else f"{base}_{len(self.kernels)}"

    def visit_AttrStmt(self, s):
        if not is_launch(s):
            return self.generic_visit(s)
        name = self._name()
        kernel, launch = _kernel_of(s, name, self.func)
        self.kernels.append(kernel)
        self.launches[name] = launch
        return tir.Evaluate(tir.Call("int32", LAUNCH_OP, [tir.StringImm(name)]))


def split_host_device(func: tir.PrimFunc) -> SplitFunc:
    """The host part, kernels and launches of ``func`` (see the module doc). A function with
    no launch attribute has no kernel: a TepadError says the schedule binds no GPU thread."""
    sp = _Splitter(func)
    host_body = sp.visit(func.body)
    if not sp.kernels:
        raise TepadError(f"function {func.name}: no loop is bound to a GPU thread "
                         "(blockIdx / threadIdx), so there is no kernel to launch; bind the "
                         "outer loops with s[T].bind(axis, te.thread_axis('blockIdx.x')) or "
                         "build for 'llvm'")
    return SplitFunc(func.with_body(host_body), tuple(sp.kernels), dict(sp.launches))


__all__ = ["split_host_device", "SplitFunc", "Launch", "LAUNCH_OP", "THREAD_EXTENT",
           "is_launch", "launch_tag"]
