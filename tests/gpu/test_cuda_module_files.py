"""A CUDA module on disk, as TVM's get-started tutorial (run_cuda=True) keeps one: the host
part saved as an object file, the device code as PTX, both in an exported library; loaded
back without a GPU (inspected) and launched through a fake driver."""
import tarfile

import numpy as np
import pytest

import tepad as tvm
from tepad.errors import TepadError, TepadTypeError
from tepad.runtime.cuda_driver import use_driver
from tepad.runtime.cuda_module import CudaModule, DeviceSourceModule

from .nvptx_helpers import FakeDriver, needs_ptxas, ptxas_ok, vadd_schedule


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    with use_driver(FakeDriver()) as d:
        yield d


def _build():
    s, args = vadd_schedule()
    return tvm.build(s, args, target="cuda", name="myadd")


def _run(f, fake, n=100):
    dev = tvm.cuda(0)
    a = tvm.nd.array(np.ones(n, "float32"), dev)
    b = tvm.nd.array(np.ones(n, "float32"), dev)
    c = tvm.nd.empty((n,), "float32", dev)
    fake.launches.clear()
    f(a, b, c)
    (fn, grid, block, shared, args), = fake.launches
    assert (fn, grid, block, shared) == ("myadd_kernel", ((n + 63) // 64, 1, 1), (64, 1, 1), 0)
    assert args == [a.data_ptr, b.data_ptr, c.data_ptr, n]


def test_export_library_round_trip_carries_the_ptx(fake, tmp_path):
    f = _build()
    path = tmp_path / "myadd_pack.so"
    f.export_library(str(path))
    g = tvm.runtime.load_module(str(path))
    assert isinstance(g, CudaModule) and g is not f
    assert g.get_source("ptx") == f.get_source("ptx") and ".entry myadd_kernel(" in g.get_source("ptx")
    # the kernels' TIR travels with the host part: the CUDA C source is there too
    assert g.imported_modules[0].get_source() == f.imported_modules[0].get_source()
    assert 'extern "C" __global__ void __launch_bounds__(64) myadd_kernel(' in g.get_source()
    assert g.imported_modules[0].get_source("ll") == f.ll
    assert g.arch == f.arch and g.entry_name == "myadd"
    assert [a.name for a in g.arg_info] == ["A", "B", "C"]
    _run(g, fake)
    # its argument checks are the saved module's
    short = tvm.nd.empty((9,), "float32", tvm.cuda(0))
    ok = tvm.nd.empty((10,), "float32", tvm.cuda(0))
    with pytest.raises(TepadError, match="argument 2 'C'.*shape"):
        g(ok, ok, short)


def test_loading_needs_no_gpu(tmp_path, monkeypatch):
    monkeypatch.delenv("TEPAD_CUDA", raising=False)
    with use_driver(FakeDriver(devices=0)):
        f = _build()
        f.export_library(str(tmp_path / "k.so"))
        g = tvm.runtime.load_module(str(tmp_path / "k.so"))
        assert ".entry myadd_kernel(" in g.imported_modules[0].get_source("ptx")
        with pytest.raises(TepadError, match="TEPAD_CUDA=emulate"):
            g(*[np.zeros(4, "float32")] * 3)


def test_device_source_formats(fake, tmp_path):
    """get_source(): CUDA C; "ptx": the PTX; a device module loaded from a .ptx file has only
    the PTX (its get_source() gives it, asking for CUDA C is an error); .cu saves the C."""
    f = _build()
    dev = f.imported_modules[0]
    cu = dev.get_source()
    assert cu == dev.get_source("cuda") == f.get_source() and "myadd_kernel(" in cu
    assert "((int)threadIdx.x)" in cu and ".entry" not in cu
    assert dev.get_source("ptx").lstrip().startswith("//") and ".entry myadd_kernel(" in \
        dev.get_source("ptx")
    dev.save(str(tmp_path / "myadd.cu"))
    assert (tmp_path / "myadd.cu").read_text() == cu
    dev.save(str(tmp_path / "myadd.ptx"))
    loaded = tvm.runtime.load_module(str(tmp_path / "myadd.ptx"))
    assert loaded.get_source() == loaded.get_source("ptx") == dev.get_source("ptx")
    with pytest.raises(TepadError, match="loaded from PTX: it has no CUDA C"):
        loaded.get_source("cuda")
    with pytest.raises(TepadError, match="unknown source format 'x'"):
        dev.get_source("x")


def test_tar_export(fake, tmp_path):
    f = _build()
    f.export_library(str(tmp_path / "k.tar"))
    with tarfile.open(tmp_path / "k.tar") as tar:
        assert tar.getnames() == ["myadd.o"]
    _run(tvm.runtime.load_module(str(tmp_path / "k.tar")), fake)


def test_tutorial_save_host_and_ptx_then_import(fake, tmp_path):
    """fadd.save("myadd.o"); fadd.imported_modules[0].save("myadd.ptx"); create_shared;
    load_module("myadd.so").import_module(load_module("myadd.ptx"))."""
    f = _build()
    f.save(str(tmp_path / "myadd.o"))
    f.imported_modules[0].save(str(tmp_path / "myadd.ptx"))
    assert (tmp_path / "myadd.ptx").read_text() == f.get_source("ptx")
    tvm.contrib.cc.create_shared(str(tmp_path / "myadd.so"), [str(tmp_path / "myadd.o")])
    host = tvm.runtime.load_module(str(tmp_path / "myadd.so"))
    assert isinstance(host, CudaModule) and host.imported_modules == []
    a = tvm.nd.array(np.ones(8, "float32"), tvm.cuda(0))
    b = tvm.nd.array(np.ones(8, "float32"), tvm.cuda(0))
    c = tvm.nd.empty((8,), "float32", tvm.cuda(0))
    with pytest.raises(TepadError, match="without its device code.*import_module"):
        host(a, b, c)
    dev_mod = tvm.runtime.load_module(str(tmp_path / "myadd.ptx"))
    assert isinstance(dev_mod, DeviceSourceModule) and dev_mod.type_key == "cuda"
    host.import_module(dev_mod)
    assert host.imported_modules[0] is dev_mod
    _run(host, fake)
    # the object file loads directly too (linked on the way)
    direct = tvm.runtime.load_module(str(tmp_path / "myadd.o"))
    direct.import_module(dev_mod)
    _run(direct, fake)


def test_file_mistakes(fake, tmp_path):
    f = _build()
    with pytest.raises(TepadError, match=r"unknown format 'bin'.*\.o.*\.ptx"):
        f.save(str(tmp_path / "k.bin"))
    bad = tmp_path / "bad.ptx"
    bad.write_text("not ptx")
    with pytest.raises(TepadError, match="not PTX"):
        tvm.runtime.load_module(str(bad))
    other = tvm.build(*vadd_schedule(), target="cuda", name="other")
    f.save(str(tmp_path / "h.o"))
    host = tvm.runtime.load_module(str(tmp_path / "h.o"))
    with pytest.raises(TepadError, match="no kernel myadd_kernel"):
        host.import_module(other.imported_modules[0])
    with pytest.raises(TepadTypeError, match="imports a device module"):
        host.import_module(f)
    with pytest.raises(TepadError, match="no device code"):
        host.export_library(str(tmp_path / "x.so"))


@needs_ptxas
def test_saved_ptx_assembles(fake, tmp_path):
    f = _build()
    f.imported_modules[0].save(str(tmp_path / "k.ptx"))
    ptxas_ok((tmp_path / "k.ptx").read_text(), tmp_path)
