"""rpc.LocalSession: upload a built library, load it back and run it on this machine, as
TVM's cross-compilation tutorial does with local_demo = True."""
import numpy as np
import pytest

import tepad as tvm
from tepad import rpc, te
from tepad.contrib import utils


def _add_one(n=256):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    return tvm.build(s, [A, B], target="llvm", name="add_one"), A


@pytest.mark.parametrize("suffix", ["tar", "so"])
def test_upload_load_and_run(suffix):
    func, A = _add_one()
    temp = utils.tempdir()
    path = temp.relpath(f"lib.{suffix}")
    func.export_library(path)
    remote = rpc.LocalSession()
    remote.upload(path)
    assert remote.listdir(".") == [f"lib.{suffix}"]
    f = remote.load_module(f"lib.{suffix}")
    dev = remote.cpu()
    a = tvm.nd.array(np.random.default_rng(0).uniform(size=256).astype(A.dtype), dev)
    b = tvm.nd.array(np.zeros(256, dtype=A.dtype), dev)
    f(a, b)
    np.testing.assert_allclose(b.numpy(), a.numpy() + 1)
    assert f.time_evaluator(f.entry_name, dev, number=3)(a, b).mean > 0
    remote.remove(f"lib.{suffix}")
    assert remote.listdir(".") == []


def test_bytes_download_and_bad_names():
    with rpc.LocalSession() as remote:
        remote.upload(b"hello", target="x/greeting.txt")
        assert bytes(remote.download("x/greeting.txt")) == b"hello"
        with pytest.raises(tvm.TepadError, match="needs target="):
            remote.upload(b"hello")
        with pytest.raises(tvm.TepadError, match="leaves the session's directory"):
            remote.download("../../etc/passwd")
        with pytest.raises(tvm.TepadError, match="no uploaded file"):
            remote.load_module("missing.so")


def test_remote_connections_are_refused_clearly():
    with pytest.raises(tvm.TepadError, match="LocalSession"):
        rpc.connect("10.0.0.1", 9090)
    with pytest.raises(tvm.TepadError, match="no RPC client"):
        rpc.connect_tracker("10.0.0.1", 9190)
