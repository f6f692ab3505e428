"""TVM's ``tvm.contrib.spirv``: ``optimize`` runs SPIRV-Tools' ``spirv-opt -O`` over a SPIR-V
binary. tepad has no Vulkan target, so nothing in tepad makes SPIR-V; programs import this
module next to ``nvcc`` and only call it for Vulkan builds. The tool is looked up as
``$VULKAN_SDK/bin/spirv-opt`` when ``VULKAN_SDK`` is set, else on ``PATH``; a TepadError says
when it is absent or when it fails."""
from __future__ import annotations

import os
import shutil
import subprocess

from ..errors import TepadError
from .utils import tempdir


def _spirv_opt() -> str:
    sdk = os.environ.get("VULKAN_SDK")
    cmd = os.path.join(sdk, "bin", "spirv-opt") if sdk else "spirv-opt"
    found = shutil.which(cmd)
    if found is None:
        where = f"$VULKAN_SDK/bin ({sdk})" if sdk else "PATH"
        raise TepadError(f"spirv.optimize: spirv-opt (SPIRV-Tools) is not on {where}; install "
                         "SPIRV-Tools or set VULKAN_SDK")
    return found


def optimize(spv_bin) -> bytearray:
    """``spv_bin`` (bytes of a SPIR-V module) optimized by ``spirv-opt -O``; the result's
    bytes as a bytearray, as TVM returns them."""
    tool = _spirv_opt()
    tmp = tempdir()
    src, out = tmp.relpath("input.spv"), tmp.relpath("output.spv")
    with open(src, "wb") as f:
        f.write(bytes(spv_bin))
    proc = subprocess.run([tool, "-O", src, "-o", out], capture_output=True)
    if proc.returncode != 0:
        msg = (proc.stdout + proc.stderr).decode(errors="replace")
        raise TepadError(f"spirv.optimize: spirv-opt failed (exit {proc.returncode}):\n{msg}")
    with open(out, "rb") as f:
        return bytearray(f.read())


__all__ = ["optimize"]
