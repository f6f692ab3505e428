"""GPU launches in TIR: the attribute that binds a thread index, and the host/device split's
result, shared by the GPU passes, the code generators and the CUDA runtime.

A *launch* is ``AttrStmt(thread IterVar, "thread_extent", extent)``. After the host/device
split (``tepad.lower.passes.split_host_device``) the host function calls
``Call("int32", LAUNCH_OP, [StringImm(kernel name)])`` where a launch region was, and a
``SplitFunc`` holds the host function, the device kernels and how each is launched.
"""
from __future__ import annotations

from dataclasses import dataclass

from .expr import Var
from .function import PrimFunc
from .stmt import AttrStmt

THREAD_EXTENT = "thread_extent"
LAUNCH_OP = "tir.tepad_cuda_launch"
THREAD_TAGS = ("threadIdx.x", "threadIdx.y", "threadIdx.z")
BLOCK_TAGS = ("blockIdx.x", "blockIdx.y", "blockIdx.z")
TAGS = BLOCK_TAGS + THREAD_TAGS


def is_launch(s) -> bool:
    """Whether statement ``s`` is a GPU launch attribute (``thread_extent``)."""
    return isinstance(s, AttrStmt) and s.attr_key == THREAD_EXTENT


def launch_tag(s) -> str:
    """The thread tag a launch binds (``threadIdx.x``); the bound variable's name when the
    node has no tag."""
    node = s.node
    return getattr(node, "thread_tag", None) or getattr(getattr(node, "var", node), "name", "")


def launch_var(s) -> Var:
    """The variable a launch binds."""
    node = s.node
    return node.var if hasattr(node, "var") else node


@dataclass(frozen=True)
class Launch:
    """One kernel launch recorded by the host: the kernel's name, ``grid`` and ``block``
    (three expressions each, x y z), ``dyn_shared`` bytes and the host values passed as the
    kernel's ``args``."""
    kernel: str
    grid: tuple
    block: tuple
    dyn_shared: object
    args: tuple


@dataclass(frozen=True)
class SplitFunc:
    """``host`` (launch regions replaced by launch calls), ``kernels`` (device PrimFuncs, in
    launch order) and ``launches`` (kernel name -> Launch)."""
    host: PrimFunc
    kernels: tuple
    launches: dict

    def functions(self) -> tuple:
        """The host function, then the kernels."""
        return (self.host,) + tuple(self.kernels)

    def with_kernels(self, kernels) -> "SplitFunc":
        """This split with ``kernels`` (the same names, in order) in place of its own."""
        return SplitFunc(self.host, tuple(kernels), self.launches)

    def script(self) -> str:
        """The host function's script, then each kernel's."""
        return "\n".join(f.script() for f in self.functions())


__all__ = ["THREAD_EXTENT", "LAUNCH_OP", "THREAD_TAGS", "BLOCK_TAGS", "TAGS", "is_launch",
           "launch_tag", "launch_var", "Launch", "SplitFunc"]
