"""TVM's "Working with Operators Using Tensor Expression" tutorial (CPU part), in our words:
a vector addition scheduled three ways, timed, saved to disk and loaded back; then a
matrix product taken through the tutorial's optimization steps (blocking, vectorizing,
loop permutation, array packing, a write cache, parallel outer loops), each step checked
against numpy and against the loops it should produce. Sizes are small so the file runs in
seconds."""
import numpy as np
import pytest

import tepad as tvm
from tepad import te, tir
from tepad.contrib import cc, utils

from .helpers import allocations, kinds

HOST = tvm.target.Target(target="llvm", host="llvm")
needs_cc = pytest.mark.skipif(cc.get_cc() is None, reason="no C compiler to link a library")


def vector_add():
    length = te.var("length")
    x = te.placeholder((length,), name="x")
    y = te.placeholder((length,), name="y")
    z = te.compute(x.shape, lambda i: x[i] + y[i], name="z")
    return x, y, z


def random_vectors(size, seed=0):
    rng = np.random.default_rng(seed)
    dev = tvm.device(HOST.kind.name, 0)
    return (tvm.nd.array(rng.random(size, dtype="float32"), dev),
            tvm.nd.array(rng.random(size, dtype="float32"), dev),
            tvm.nd.array(np.zeros(size, dtype="float32"), dev))


def test_target_with_host_is_the_cpu():
    assert HOST.kind.name == "llvm"
    assert HOST.host is not None and HOST.host.kind.name == "llvm"
    assert tvm.device(HOST.kind.name, 0) == tvm.cpu(0)


def test_vector_add_default_schedule_runs_and_times():
    x, y, z = vector_add()
    s = te.create_schedule(z.op)
    f = tvm.build(s, [x, y, z], HOST, name="vadd")
    assert f.entry_name == "vadd"
    a, b, c = random_vectors(777)
    f(a, b, c)
    np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())
    timing = f.time_evaluator(f.entry_name, tvm.cpu(0), number=3)(a, b, c)
    assert timing.mean > 0 and len(timing.results) == 1


def test_vector_add_parallel_then_split_vectorized():
    x, y, z = vector_add()
    s = te.create_schedule(z.op)
    s[z].parallel(z.op.axis[0])
    assert kinds(tvm.lower(s, [x, y, z], simple_mode=True), tir.ForKind.PARALLEL) == ["i"]
    a, b, c = random_vectors(1000, seed=1)
    tvm.build(s, [x, y, z], HOST, name="vadd_par")(a, b, c)
    np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())

    x, y, z = vector_add()                 # a fresh definition, as the tutorial starts over
    s = te.create_schedule(z.op)
    outer, inner = s[z].split(z.op.axis[0], factor=4)
    s[z].parallel(outer)
    s[z].vectorize(inner)
    text = str(tvm.lower(s, [x, y, z], simple_mode=True))
    assert "T.parallel" in text and "T.vectorized(4)" in text
    lowered = tvm.lower(s, [x, y, z])
    assert kinds(lowered, tir.ForKind.PARALLEL) == ["i.outer"]
    assert kinds(lowered, tir.ForKind.VECTORIZED) == ["i.inner"]
    a, b, c = random_vectors(1023, seed=2)  # not a multiple of the vector width
    tvm.build(s, [x, y, z], HOST, name="vadd_vec")(a, b, c)
    np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())


@needs_cc
def test_saved_object_linked_and_loaded_back():
    x, y, z = vector_add()
    s = te.create_schedule(z.op)
    f = tvm.build(s, [x, y, z], HOST, name="vadd_file")
    tmp = utils.tempdir()
    f.save(tmp.relpath("vadd.o"))
    cc.create_shared(tmp.relpath("vadd.so"), [tmp.relpath("vadd.o")])
    assert sorted(tmp.listdir()) == ["vadd.o", "vadd.so"]
    loaded = tvm.runtime.load_module(tmp.relpath("vadd.so"))
    assert loaded.entry_name == "vadd_file"
    a, b, c = random_vectors(300, seed=3)
    loaded(a, b, c)
    np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())
    # the loaded module checks its arguments as the built one does
    with pytest.raises(ValueError, match="y"):
        loaded(a.numpy(), np.zeros(299, "float32"), c.numpy())
    assert "vadd_file" in loaded.get_source()


@needs_cc
def test_export_library_round_trip_keeps_the_schedule():
    x, y, z = vector_add()
    s = te.create_schedule(z.op)
    outer, inner = s[z].split(z.op.axis[0], factor=8)
    s[z].parallel(outer)
    s[z].vectorize(inner)
    f = tvm.build(s, [x, y, z], HOST, name="vadd_pack")
    tmp = utils.tempdir()
    for file_name in ("pack.so", "pack.tar"):
        f.export_library(tmp.relpath(file_name))
        back = tvm.runtime.load_module(tmp.relpath(file_name))
        a, b, c = random_vectors(517, seed=4)
        back(a, b, c)
        np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())


def test_save_text_formats_and_refusals(tmp_path):
    x, y, z = vector_add()
    f = tvm.build(te.create_schedule(z.op), [x, y, z], HOST, name="vadd_text")
    f.save(str(tmp_path / "k.ll"))
    assert "define" in (tmp_path / "k.ll").read_text()
    with pytest.raises(tvm.TepadError, match="unknown format 'txt'"):
        f.save(str(tmp_path / "k.txt"))
    with pytest.raises(tvm.TepadError, match="no file"):
        tvm.runtime.load_module(str(tmp_path / "missing.so"))


# --- the matrix product ----------------------------------------------------------------------

SIZE, TILE = 64, 16


@pytest.fixture(scope="module")
def operands():
    rng = np.random.default_rng(7)
    a = rng.random((SIZE, SIZE), dtype="float32")
    b = rng.random((SIZE, SIZE), dtype="float32")
    return a, b, a @ b


def matmul():
    r = te.reduce_axis((0, SIZE), "r")
    lhs = te.placeholder((SIZE, SIZE), name="lhs")
    rhs = te.placeholder((SIZE, SIZE), name="rhs")
    out = te.compute((SIZE, SIZE), lambda row, col: te.sum(lhs[row, r] * rhs[r, col], axis=r),
                     name="out")
    return lhs, rhs, out


def run(s, args, operands):
    a, b, want = operands
    f = tvm.build(s, args, target=HOST, name="mm")
    got = tvm.nd.array(np.zeros((SIZE, SIZE), "float32"))
    f(tvm.nd.array(a), tvm.nd.array(b), got)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)
    assert f.time_evaluator(f.entry_name, tvm.cpu(0), number=1)(a, b, got.numpy()).mean > 0
    return tvm.lower(s, args, simple_mode=True)


def blocked(s, out):
    ro, co, ri, ci = s[out].tile(out.op.axis[0], out.op.axis[1], TILE, TILE)
    (r,) = s[out].op.reduce_axis
    rk, rl = s[out].split(r, factor=4)
    return ro, co, ri, ci, rk, rl


def test_matmul_blocking_vectorizing_permuting(operands):
    lhs, rhs, out = matmul()
    s = te.create_schedule(out.op)
    assert kinds(run(s, [lhs, rhs, out], operands), tir.ForKind.SERIAL) == ["col", "r", "row"]

    ro, co, ri, ci, rk, rl = blocked(s, out)
    s[out].reorder(ro, co, rk, rl, ri, ci)
    run(s, [lhs, rhs, out], operands)

    s[out].vectorize(ci)
    mod = run(s, [lhs, rhs, out], operands)
    assert "col.inner" in kinds(mod, tir.ForKind.VECTORIZED)

    s = te.create_schedule(out.op)              # loop permutation: the row loop outside rl
    ro, co, ri, ci, rk, rl = blocked(s, out)
    s[out].reorder(ro, co, rk, ri, rl, ci)
    s[out].vectorize(ci)
    text = str(run(s, [lhs, rhs, out], operands))
    assert text.index("row_inner") < text.index("r_inner") < text.index("col_inner in")


def packed_matmul():
    r = te.reduce_axis((0, SIZE), "r")
    lhs = te.placeholder((SIZE, SIZE), name="lhs")
    rhs = te.placeholder((SIZE, SIZE), name="rhs")
    # SIZE / TILE is a Python float: te.compute takes an integral one as its int
    packed = te.compute((SIZE / TILE, SIZE, TILE), lambda blk, k, lane: rhs[k, blk * TILE + lane],
                        name="packed")
    out = te.compute(
        (SIZE, SIZE),
        lambda row, col: te.sum(lhs[row, r] * packed[col // TILE, r, tir.indexmod(col, TILE)],
                                axis=r), name="out")
    return lhs, rhs, packed, out


def pack_in_parallel(s, packed):
    blk, _, lane = s[packed].op.axis
    s[packed].vectorize(lane)
    s[packed].parallel(blk)


def test_matmul_array_packing(operands):
    lhs, rhs, packed, out = packed_matmul()
    assert [int(e) for e in packed.shape] == [SIZE // TILE, SIZE, TILE]
    s = te.create_schedule(out.op)
    ro, co, ri, ci, rk, rl = blocked(s, out)
    s[out].reorder(ro, co, rk, ri, rl, ci)
    s[out].vectorize(ci)
    pack_in_parallel(s, packed)
    mod = run(s, [lhs, rhs, out], operands)
    assert allocations(mod) == ["packed"]
    assert kinds(mod, tir.ForKind.PARALLEL) == ["blk"]
    assert sorted(kinds(mod, tir.ForKind.VECTORIZED)) == ["col.inner", "col.inner.init", "lane"]


def test_matmul_write_cache_then_parallel(operands):
    lhs, rhs, packed, out = packed_matmul()
    s = te.create_schedule(out.op)
    cached = s.cache_write(out, "global")
    ro, co, ri, ci = s[out].tile(out.op.axis[0], out.op.axis[1], TILE, TILE)
    s[cached].compute_at(s[out], co)
    crow, ccol = s[cached].op.axis
    (r,) = s[cached].op.reduce_axis
    rk, rl = s[cached].split(r, factor=4)
    s[cached].reorder(rk, crow, rl, ccol)
    s[cached].unroll(rl)
    s[cached].vectorize(ccol)
    pack_in_parallel(s, packed)
    mod = run(s, [lhs, rhs, out], operands)
    assert sorted(allocations(mod)) == ["out.global", "packed"]
    assert kinds(mod, tir.ForKind.UNROLLED) == ["r.inner"]

    s[out].parallel(ro)
    mod = run(s, [lhs, rhs, out], operands)
    assert kinds(mod, tir.ForKind.PARALLEL) == ["blk", "row.outer"]
    # the cache is a tile of the output, allocated inside the parallel loop (one per thread)
    text = str(mod)
    assert text.index("row_outer in T.parallel") < text.index("out_global = T.allocate([256]")
