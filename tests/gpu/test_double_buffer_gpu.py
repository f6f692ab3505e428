"""double_buffer on the shared-memory stages of a tiled matmul: the shared allocations are
doubled, each k step loads the next tile into the other half after thread_sync's one
barrier per step, results match numpy through the emulator with the race check on (and the race
check fails without the barriers), and ptxas accepts the kernel with twice the shared
memory."""
import re
import subprocess

import numpy as np
import pytest

import tepad
from tepad.tir import expr as E
from tepad.tir import stmt as S

from emulator_kernels import emulate_cuda
from gpu_helpers import allocs, gpu_lower, nodes, syncs, tiled_matmul
from nvptx_helpers import PTXAS, needs_ptxas

TILE = 16


def schedule(n, double=True):
    s, args = tiled_matmul(n, TILE)
    if double:
        for st in s.stages:
            if st.op.name.endswith(".shared"):
                st.double_buffer()
    return s, args


def shared_extents(f):
    return {a.buffer_var.name: [int(e) for e in a.extents] for a in nodes(f, S.Allocate)
            if a.annotations.get("scope") == "shared"}


def test_ir_doubled_shared_prologue_and_barriers():
    plain = gpu_lower(*schedule(48, double=False))
    f = gpu_lower(*schedule(48))
    assert shared_extents(plain) == {"A.shared": [256], "B.shared": [256]}
    assert shared_extents(f) == {"A.shared": [512], "B.shared": [512]}
    (loop,) = [x for x in nodes(f, S.For) if x.loop_var.name == "k.outer"]
    assert int(loop.extent) == 2                     # 3 k steps: the last one is peeled
    # inside the loop one barrier, before the writes of the next tile (the previous step
    # read that half); the reads of this tile that follow use the other half (TVM's rule for
    # double_buffer_write), so no second barrier
    assert len(syncs(loop)) == 1
    first = loop.body.seq[0] if isinstance(loop.body, S.SeqStmt) else loop.body
    assert isinstance(first, S.AttrStmt) and first.attr_key == "double_buffer_write"
    stores = [x for x in nodes(loop, S.BufferStore) if x.buffer.name.endswith(".shared")]
    assert len(stores) == 2 and all(
        [m for m in nodes(x.indices[0], E.FloorMod) if int(m.b) == 2] for x in stores)
    # the peeled step reads what the loop's last iteration wrote: a barrier after the loop
    assert len(syncs(f)) == 2
    assert allocs(f)["A.shared"] == "shared"


@pytest.mark.usefixtures(emulate_cuda.__name__)
@pytest.mark.parametrize("n,split_loop", [(48, None), (64, None), (64, 2), (80, 3), (48, 0)])
def test_emulator_matches_numpy_with_race_check(n, split_loop):
    s, args = schedule(n)
    config = {} if split_loop is None else {"tir.InjectDoubleBuffer": {"split_loop": split_loop}}
    with tepad.transform.PassContext(config=config):
        f = tepad.build(s, args, target="cuda")
    rng = np.random.default_rng(n)
    a = rng.random((n, n), dtype="float32") - 0.5
    b = rng.random((n, n), dtype="float32") - 0.5
    c = np.full((n, n), np.nan, "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.usefixtures(emulate_cuda.__name__)
def test_race_check_fails_without_thread_sync():
    s, args = schedule(48)
    with tepad.transform.PassContext(disabled_pass=["tir.ThreadSync"]):
        f = tepad.build(s, args, target="cuda")
    a = np.ones((48, 48), "float32")
    with pytest.raises(tepad.TepadError, match="data race"):
        f(a, a, np.zeros((48, 48), "float32"))


@needs_ptxas
def test_ptxas_accepts_the_doubled_shared_memory(tmp_path):
    s, args = schedule(64)
    ptx = tepad.build(s, args, target="cuda -arch=sm_90").get_source("ptx")
    assert ptx.count("bar.sync") >= 2
    (tmp_path / "k.ptx").write_text(ptx)
    r = subprocess.run([PTXAS, "-v", "-arch=sm_90", str(tmp_path / "k.ptx"), "-o",
                        str(tmp_path / "k.cubin")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    smem = int(re.search(r"(\d+) bytes smem", r.stderr).group(1))
    assert smem == 2 * 2 * TILE * TILE * 4          # A and B tiles, two halves each


def test_hand_built_scope_split_loop_two_as_tvm_test():
    """TVM's test_double_buffer: a shared buffer B written in a loop of 100 under a
    double_buffer_scope, split_loop 2: the allocation is doubled at the top of the kernel,
    and thread_sync needs 4 barriers (one per copy of the body, two for the tail)."""
    from tepad import te, tir
    tx = te.thread_axis("threadIdx.x")
    ib = tir.ir_builder.create()
    A = ib.pointer("float32", name="A")
    C = ib.pointer("float32", name="C")
    ib.scope_attr(tx, "thread_extent", 1)
    with ib.for_range(0, 100) as i:
        B = ib.allocate("float32", 4, name="B", scope="shared")
        with ib.new_scope():
            ib.scope_attr(B.asobject().data, "double_buffer_scope", 1)
            with ib.for_range(0, 4) as j:
                B[j] = A[i * 4 + j]
        with ib.for_range(0, 4) as j:
            C[j] = B[j] + 1
    mod = tepad.IRModule({"db": tir.PrimFunc([A.asobject(), C.asobject()], ib.get())})
    opt = tepad.transform.Sequential([tir.transform.InjectDoubleBuffer(),
                                      tir.transform.Simplify()])
    with tepad.transform.PassContext(config={"tir.InjectDoubleBuffer": {"split_loop": 2}}):
        mod = opt(mod)
    body = mod["db"].body
    assert isinstance(body.body, S.Allocate) and [int(e) for e in body.body.extents] == [8]
    assert len(syncs(tir.transform.ThreadSync("shared")(mod)["db"])) == 4
