"""TVM's ``tvm.contrib.nvcc``: CUDA compute-capability helpers (``parse_compute_version``,
``have_fp16``, ``have_int8``, ``have_tensorcore``, ``have_bf16``,
``get_target_compute_version``) and the nvcc driver (``find_cuda_path``,
``get_cuda_version``, ``compile_cuda``: CUDA C -> PTX / cubin / fatbin with the system nvcc,
a TepadError when there is none). tepad's own CUDA path does not need nvcc: it generates PTX
itself (docs/cuda.md)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess

from ..errors import TepadError
from ..runtime.device import cuda as _cuda
from ..target import Target
from .utils import tempdir


def parse_compute_version(compute_version) -> tuple:
    """``"8.6"`` -> ``(8, 6)`` (also ``"sm_86"`` and ``"86"``)."""
    text = str(compute_version).strip()
    m = re.fullmatch(r"(?:sm_)?(\d+)\.(\d+)", text) or \
        re.fullmatch(r"(?:sm_)?(\d+)(\d)a?", text)
    if not m:
        raise TepadError(f"compute version {compute_version!r} is not like '8.6' or 'sm_86'")
    return int(m.group(1)), int(m.group(2))


def have_fp16(compute_version) -> bool:
    """Whether GPUs of this compute capability do float16 arithmetic (5.3, and 6.0 on)."""
    major, minor = parse_compute_version(compute_version)
    return (major, minor) == (5, 3) or major >= 6


def have_int8(compute_version) -> bool:
    """Whether they have the int8 dot products (6.1 on)."""
    major, minor = parse_compute_version(compute_version)
    return (major, minor) >= (6, 1)


def have_bf16(compute_version) -> bool:
    """Whether they compute in bfloat16 (8.0 on)."""
    return parse_compute_version(compute_version)[0] >= 8


def get_target_compute_version(target=None) -> str:
    """The compute capability to build for, ``"9.0"``: the ``-arch`` of ``target`` (a cuda
    Target or its text; default the ``with`` target), else the first GPU's; a TepadError
    when neither says."""
    tgt = target if isinstance(target, Target) or target is None else Target(target)
    tgt = tgt or Target.current()
    if tgt is not None and tgt.is_gpu and tgt.arch:          # cuda / nvptx (opencl has none)
        major, minor = parse_compute_version(tgt.arch)
        return f"{major}.{minor}"
    dev = _cuda(0)
    if dev.exist:
        return dev.compute_version
    raise TepadError("get_target_compute_version: no cuda target (-arch=sm_XX) is given and "
                     "no GPU is there to ask")


def have_tensorcore(compute_version=None, target=None) -> bool:
    """Whether the GPU has tensor cores (7.0 on); the version from ``target`` or the GPU when
    not given."""
    if compute_version is None:
        compute_version = get_target_compute_version(target)
    return parse_compute_version(compute_version)[0] >= 7


def find_cuda_path() -> str:
    """The CUDA installation: ``$CUDA_PATH`` / ``$CUDA_HOME``, else the parent of nvcc's
    directory, else ``/usr/local/cuda``; a TepadError when there is none."""
    for env in ("CUDA_PATH", "CUDA_HOME"):
        if os.environ.get(env):
            return os.environ[env]
    nvcc = shutil.which("nvcc")
    if nvcc:
        return os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    if os.path.isdir("/usr/local/cuda"):
        return "/usr/local/cuda"
    raise TepadError("find_cuda_path: no CUDA installation (no nvcc on PATH, no CUDA_PATH)")


def _nvcc(cuda_path=None) -> str:
    path = os.path.join(cuda_path, "bin", "nvcc") if cuda_path else shutil.which("nvcc")
    if not path or not os.path.isfile(path):
        raise TepadError("tvm.contrib.nvcc: nvcc is not installed (not on PATH"
                         f"{'' if not cuda_path else ' nor in ' + cuda_path}); install the "
                         "CUDA toolkit, or use tepad's own CUDA path (target='cuda' builds "
                         "PTX without nvcc)")
    return path


def get_cuda_version(cuda_path=None) -> tuple:
    """nvcc's CUDA version, ``(12, 4)``."""
    out = subprocess.run([_nvcc(cuda_path), "--version"], capture_output=True, text=True)
    m = re.search(r"release (\d+)\.(\d+)", out.stdout)
    if not m:
        raise TepadError(f"get_cuda_version: cannot read nvcc's version from {out.stdout!r}")
    return int(m.group(1)), int(m.group(2))


def compile_cuda(code: str, target_format: str = "ptx", arch=None, options=None,
                 path_target=None) -> bytes:
    """CUDA C ``code`` compiled by nvcc to ``target_format`` (``"ptx"``, ``"cubin"`` or
    ``"fatbin"``) for ``arch`` (``"sm_80"``; default the target's or GPU's); the file's
    bytes. ``path_target`` keeps the output there."""
    if target_format not in ("ptx", "cubin", "fatbin"):
        raise TepadError(f"compile_cuda: target_format must be 'ptx', 'cubin' or 'fatbin', "
                         f"got {target_format!r}")
    nvcc = _nvcc()
    if arch is None:
        major, minor = parse_compute_version(get_target_compute_version())
        arch = f"sm_{major}{minor}"
    tmp = tempdir()
    src = tmp.relpath("my_kernel.cu")
    out = path_target or tmp.relpath(f"my_kernel.{target_format}")
    with open(src, "w") as f:
        f.write(code)
    archs = [arch] if isinstance(arch, str) else list(arch)
    cmd = [nvcc, f"--{target_format}", "-O3"]
    for a in archs:
        cmd += ["-gencode", f"arch=compute_{a.split('_')[-1]},code={a}"] \
            if target_format != "ptx" else [f"-arch={a}"]
    cmd += list(options or []) if not isinstance(options, str) else [options]
    cmd += ["-o", out, src]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise TepadError(f"compile_cuda: nvcc failed:\n{code}\n{proc.stdout}{proc.stderr}")
    with open(out, "rb") as f:
        return f.read()


__all__ = ["parse_compute_version", "have_fp16", "have_int8", "have_bf16", "have_tensorcore",
           "get_target_compute_version", "find_cuda_path", "get_cuda_version",
           "compile_cuda"]
