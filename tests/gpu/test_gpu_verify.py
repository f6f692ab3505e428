"""verify_gpu_code: what the device cannot run is a TepadError naming the stage or the tag."""
import pytest

import tepad
from tepad import te
from tepad.errors import TepadError
from tepad.lower.pipeline import Options, lower_for_codegen
from tepad.target import Target

from gpu_helpers import elementwise, gpu_lower, tiled_matmul


def test_good_schedules_pass():
    gpu_lower(*elementwise())
    gpu_lower(*tiled_matmul())


def test_a_host_loop_around_a_launch_is_accepted():
    # TVM's SplitHostDevice launches the kernel once per host iteration: valid
    A = te.placeholder((64, 64), name="A")
    B = te.compute((64, 64), lambda i, j: A[i, j] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[1], te.thread_axis("threadIdx.x"))
    gpu_lower(s, [A, B])


def test_a_stage_at_root_between_kernels_is_refused():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1.0, name="B")       # never bound
    C = te.compute((64,), lambda i: B[i] * 2.0, name="C")
    s = te.create_schedule(C.op)
    s[C].bind(C.op.axis[0], te.thread_axis("threadIdx.x"))
    with pytest.raises(TepadError, match="stage B: kernel main writes B outside every GPU "
                                         "launch: a loop of B is not bound to blockIdx/"
                                         "threadIdx"):
        gpu_lower(s, [A, C])


@pytest.mark.parametrize("tag,extent,limit", [("threadIdx.x", 2048, 1024),
                                               ("threadIdx.z", 128, 64),
                                               ("blockIdx.y", 70000, 65535)])
def test_thread_extent_over_a_dimension_limit(tag, extent, limit):
    A = te.placeholder((extent,), name="A")
    B = te.compute((extent,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[0], te.thread_axis(tag))
    with pytest.raises(TepadError, match=f"{tag} has extent {extent}, over the device limit "
                                         f"{limit}"):
        gpu_lower(s, [A, B])


def _block_2d(ty, tx):
    A = te.placeholder((ty, tx), name="A")
    B = te.compute((ty, tx), lambda i, j: A[i, j] + 1.0, name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[0], te.thread_axis("threadIdx.y"))
    s[B].bind(B.op.axis[1], te.thread_axis("threadIdx.x"))
    return s, [A, B]


def test_threads_per_block_over_the_target_limit():
    with pytest.raises(TepadError, match=r"2048 threads per block \(threadIdx.x 64 \* "
                                         r"threadIdx.y 32\) is over the target's limit of 1024"):
        gpu_lower(*_block_2d(32, 64))
    gpu_lower(*_block_2d(16, 64))
    with pytest.raises(TepadError, match="1024 threads per block .* limit of 512"):
        lower_for_codegen(*_block_2d(16, 64), "main",
                          Options(target=Target("cuda -max_num_threads=512")))
    with pytest.raises(TepadError, match="limit of 256"):
        lower_for_codegen(*_block_2d(16, 64), "main", Options(
            target=Target("cuda -max_threads_per_block=256")))


def test_shared_memory_over_the_per_block_limit():
    n = 128
    A = te.placeholder((n, n), name="A")
    B = te.compute((n, n), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    AA = s.cache_read(A, "shared", [B])
    bx, tx = s[B].split(B.op.axis[0], factor=n)       # one block for all: 64 KiB of A
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(B.op.axis[1], te.thread_axis("threadIdx.x"))
    s[AA].compute_at(s[B], bx)
    s[AA].bind(s[AA].op.axis[1], te.thread_axis("threadIdx.x"))
    with pytest.raises(TepadError, match=r"shared memory A.shared needs 65536 bytes per block, "
                                         r"over the target's max_shared_memory_per_block of "
                                         r"49152"):
        gpu_lower(s, [A, B])
    lower_for_codegen(s, [A, B], "main", Options(
        target=Target("cuda -max_shared_memory_per_block=65536")))


def test_a_tag_bound_with_two_extents_is_refused():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((64,), lambda i: B[i] * 2.0, name="C")
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=16)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[B].compute_at(s[C], bx)
    s[B].set_scope("shared")
    bo, bi = s[B].split(s[B].op.axis[0], factor=8)
    s[B].bind(bi, te.thread_axis("threadIdx.x"))
    with pytest.raises(TepadError, match="threadIdx.x is bound with extent 16 and with "
                                         "extent 8"):
        gpu_lower(s, [A, C])


def test_options_from_context_carry_the_target_limits():
    opts = Options.from_context(target=Target("cuda -max_num_threads=256"))
    assert opts.target == Target("cuda -max_num_threads=256")
    with pytest.raises(TepadError, match="limit of 256"):
        lower_for_codegen(*_block_2d(16, 64), "main", opts)


def test_a_schedule_with_no_bind_is_refused_for_the_gpu():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    with pytest.raises(TepadError, match="stage B: kernel main has no GPU launch.*did you "
                                         "forget to bind"):
        gpu_lower(s, [A, B])


def test_a_bound_axis_that_starts_below_zero_says_to_split_before_binding():
    """A root stage read at ``i - 1`` is realized from -1; binding its root axis directly
    is refused with advice that works (normalize rebases only unbound axes)."""
    A = te.placeholder((2,), "float32", name="A")
    B = te.compute((2,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((2,), lambda i: te.if_then_else(i >= 1, B[i - 1], 0.0), name="C")
    s = te.create_schedule(C.op)
    for t in (B, C):
        s[t].bind(s[t].op.axis[0], te.thread_axis("blockIdx.x"))
    with pytest.raises(TepadError, match=r"stage B: axis i bound to blockIdx.x starts at -1.*"
                                         r"split the axis before binding"):
        tepad.lower(s, [A, C])
    s = te.create_schedule(C.op)
    for t in (B, C):
        o, _ = s[t].split(s[t].op.axis[0], factor=1)
        s[t].bind(o, te.thread_axis("blockIdx.x"))
    assert "blockIdx" in str(tepad.lower(s, [A, C]))
