"""Target("cuda") / Target("nvptx"): the device limits GPU lowering checks, as TVM exposes them."""
import pytest

import tepad as tvm
from tepad.errors import TepadError
from tepad.target import Target


def test_cuda_target_has_tvm_default_limits():
    t = Target("cuda")
    assert t.kind.name == "cuda" and t.keys == ["cuda", "gpu"]
    assert t.max_num_threads == 1024 and t.attrs["max_num_threads"] == 1024
    assert t.attrs["max_threads_per_block"] == 1024
    assert t.attrs["max_shared_memory_per_block"] == 49152
    assert t.thread_warp_size == 32 and t.attrs["thread_warp_size"] == 32
    assert t.arch == "sm_90" and t.attrs["arch"] == "sm_90"


def test_arch_and_limits_are_parsed_as_given():
    t = Target("cuda -arch=sm_80 -max_num_threads=512 -max_shared_memory_per_block=65536")
    assert t.arch == "sm_80" and t.mcpu == "sm_80"
    assert t.max_num_threads == 512 and isinstance(t.attrs["max_num_threads"], int)
    assert t.max_shared_memory_per_block == 65536


def test_nvptx_takes_its_arch_from_mcpu():
    t = Target("nvptx -mcpu=sm_86")
    assert t.kind.name == "nvptx" and t.arch == "sm_86" and t.mcpu == "sm_86"
    assert Target("nvptx").arch == "sm_90"


def test_tvm_target_cuda_helper():
    t = tvm.target.cuda(model="h100", arch="sm_90")
    assert t.kind.name == "cuda" and t.model == "h100" and t.arch == "sm_90"
    assert tvm.target.cuda().arch == "sm_90"
    assert tvm.target.cuda(options="-max_num_threads=256").max_num_threads == 256


def test_bad_gpu_options_are_refused():
    with pytest.raises(TepadError, match="-arch must name a compute capability"):
        Target("cuda -arch=volta")
    with pytest.raises(TepadError, match="-max_num_threads must be a positive integer"):
        Target("cuda -max_num_threads=zero")
    with pytest.raises(TepadError, match="-thread_warp_size must be a positive integer"):
        Target("cuda -thread_warp_size=0")


def test_cpu_target_has_no_gpu_attrs():
    t = Target("llvm")
    assert "arch" not in t.attrs and t.arch == "" and not t.is_gpu
    assert Target("cuda").is_gpu
