"""verify_gpu_code: refuse a lowered GPU function the device cannot run (TVM's
VerifyGPUCode plus the checks TVM makes while splitting host and device code).

Guarantees: the function is returned unchanged, or a ``TepadError`` names the stage (the
buffer written) or the thread tag and says what would be valid, when

* code outside every launch writes memory (a loop left unbound: the host cannot write
  device memory element by element), or the function has no launch at all (TVM's "did you
  forget to bind?");
* one tag is launched with different extents in one kernel (every launch attribute of a tag
  names the same hardware index);
* a thread extent is over its per-dimension limit (``threadIdx.x/y`` 1024, ``threadIdx.z``
  64; ``blockIdx.y/z`` 65535, ``blockIdx.x`` 2**31-1), or the product of the ``threadIdx``
  extents is over the target's ``max_threads_per_block`` / ``max_num_threads``;
* the ``shared`` allocations of a kernel need more bytes than the target's
  ``max_shared_memory_per_block``, or one has no constant size.

Symbolic launch extents are checked by the launch (they are known only then).
"""
from __future__ import annotations

from ...errors import TepadError
from ...target import Target
from ...tir import dtype as dt
from ...tir.expr import IntImm
from ...tir.function import PrimFunc
from ...tir.storage_scope import storage_rank
from ...tir.functor import Visitor, post_order_visit
from ...tir.stmt import Allocate
from ..gpu_kernel import kernel_launches, kernels
from ...tir.launch import is_launch, launch_tag
from ...tir.transform import register_pass

DIM_LIMITS = {"threadIdx.x": 1024, "threadIdx.y": 1024, "threadIdx.z": 64,
              "blockIdx.x": 2 ** 31 - 1, "blockIdx.y": 65535, "blockIdx.z": 65535}


def gpu_limits(target=None) -> dict:
    """``{max_threads_per_block, max_shared_memory_per_block}`` of ``target`` (a Target, a
    target string, or None: the ``with`` target when it is a GPU, else cuda's defaults)."""
    if target is None:
        cur = Target.current()
        target = cur if cur is not None and cur.is_gpu else Target("cuda")
    t = target if isinstance(target, Target) else Target(target)
    return {"max_threads_per_block": min(t.max_threads_per_block, t.max_num_threads),
            "max_shared_memory_per_block": t.max_shared_memory_per_block}


class _HostWrites(Visitor):
    """Stores outside every launch."""

    def __init__(self):
        self.found = []

    def visit_AttrStmt(self, n):
        if is_launch(n):
            return
        self.generic_visit(n)

    def visit_BufferStore(self, s):
        self.found.append(s)


def _const(e):
    return e.value if isinstance(e, IntImm) else None


def _check_kernel(func, kernel, limits):
    extents = {}
    for a in kernel_launches(kernel):
        tag, ext = launch_tag(a), _const(a.value)
        if tag in extents and ext is not None and extents[tag] is not None and \
                extents[tag] != ext:
            raise TepadError(
                f"kernel {func.name}: {tag} is bound with extent {extents[tag]} and with "
                f"extent {ext}; every loop bound to one thread tag in a kernel must have the "
                f"same extent (split the loops by the same factor)")
        extents.setdefault(tag, ext)
        if ext is not None and tag in DIM_LIMITS and ext > DIM_LIMITS[tag]:
            raise TepadError(
                f"kernel {func.name}: {tag} has extent {ext}, over the device limit "
                f"{DIM_LIMITS[tag]} for that dimension (split the loop and bind the outer "
                f"part to blockIdx)")
    threads = 1
    for tag in ("threadIdx.x", "threadIdx.y", "threadIdx.z"):
        if extents.get(tag) is not None:
            threads *= extents[tag]
    if threads > limits["max_threads_per_block"]:
        dims = " * ".join(f"{t} {extents[t]}" for t in ("threadIdx.x", "threadIdx.y",
                                                        "threadIdx.z") if t in extents)
        raise TepadError(
            f"kernel {func.name}: {threads} threads per block ({dims}) is over the target's "
            f"limit of {limits['max_threads_per_block']} (max_threads_per_block); use "
            f"smaller threadIdx extents")
    shared = []

    def f(n):
        if isinstance(n, Allocate) and \
                storage_rank(n.annotations.get("scope", "")) == "shared":
            shared.append(n)
    post_order_visit(kernel, f)
    total = 0
    for a in shared:
        size = 1
        for e in a.extents:
            if _const(e) is None:
                raise TepadError(
                    f"kernel {func.name}: shared buffer {a.buffer_var.name} has size {e}, "
                    f"not a constant; shared memory is sized when the kernel is compiled "
                    f"(make the region of the shared stage constant, e.g. split by a factor)")
            size *= _const(e)
        total += size * dt.parse(a.dtype).bytes
    if total > limits["max_shared_memory_per_block"]:
        names = ", ".join(a.buffer_var.name for a in shared)
        raise TepadError(
            f"kernel {func.name}: shared memory {names} needs {total} bytes per block, over "
            f"the target's max_shared_memory_per_block of "
            f"{limits['max_shared_memory_per_block']} bytes (use smaller tiles)")


@register_pass()
def verify_gpu_code(func: PrimFunc, target=None) -> PrimFunc:
    """``func`` unchanged, or the TepadError the module describes. ``target``: where the
    limits come from (see ``gpu_limits``)."""
    found = kernels(func.body)
    host = _HostWrites()
    host.visit(func.body)
    if host.found and not found:
        name = host.found[0].buffer.name
        raise TepadError(
            f"stage {name}: kernel {func.name} has no GPU launch: no loop is bound to "
            f"blockIdx/threadIdx, so nothing runs on the device (did you forget to bind? "
            f"e.g. xo, xi = s[{name}].split(axis, factor=64); "
            f"s[{name}].bind(xo, te.thread_axis('blockIdx.x')); "
            f"s[{name}].bind(xi, te.thread_axis('threadIdx.x')))")
    if not found:
        return func
    if host.found:
        name = host.found[0].buffer.name
        raise TepadError(
            f"stage {name}: kernel {func.name} writes {name} outside every GPU launch: a loop "
            f"of {name} is not bound to blockIdx/threadIdx (bind its outer loops, e.g. "
            f"s[{name}].bind(xo, te.thread_axis('blockIdx.x')) and the inner one to "
            f"threadIdx.x, or compute_at it inside a bound loop)")
    limits = gpu_limits(target)
    for k in found:
        _check_kernel(func, k, limits)
    return func


__all__ = ["verify_gpu_code", "gpu_limits", "DIM_LIMITS"]
