"""The fuzzer draws the same cases for the same seed (pinned text and hashes).

Case ``i`` of a seed must stay the same program across refactors: reported failures are
replayed by seed and index (``python -m tepad.fuzz --seed S --replay i``). A deliberate change
of what is drawn changes these pins; update them in the same commit and say so.
"""
import hashlib

from tepad.fuzz.generator import Config, RandomSource, generate

PINNED_LINES = [
    "A = te.placeholder((9, 1), 'float32', name='A')",
    "T0 = te.compute((9, 1), lambda i, j: (te.floor(tir.min(tir.max(A[i, j] * 4.0, "
    "tir.const(-100.0, 'float32')), tir.const(100.0, 'float32')))).astype('int8'), name='T0')",
    "s = te.create_schedule([T0.op])",
    "T0_i_0 = s[T0].leaf_iter_vars[0]",
    "T0_j_1 = s[T0].leaf_iter_vars[1]",
    "T0_xo2, T0_yo3, T0_xi4, T0_yi5 = s[T0].tile(T0_i_0, T0_j_1, 4, 2)",
    "T0_xo6, T0_yo7, T0_xi8, T0_yi9 = s[T0].tile(T0_xo2, T0_yo3, 2, 3)",
    "T0_xo10, T0_yo11, T0_xi12, T0_yi13 = s[T0].tile(T0_xi4, T0_yi5, 4, 5)",
    "s[T0].reorder(T0_xo6, T0_yo7, T0_xi8, T0_yi9, T0_xo10, T0_yo11, T0_xi12, T0_yi13)",
    "s[T0].unroll(T0_xi8)",
    "s[T0].storage_align(s[T0].op.axis[1], 3, 2)",
]

# sha256(case.script(exact=True))[:16] of cases "pinned:0".."pinned:15"
PINNED_DEFAULT = [
    "a54748b5f061e056", "695a1fe6ecdb6662", "7319fe9a5bd5d499", "c8185ed5ab5f32fe",
    "2492226766e5f7a1", "c53d49a92c63e6e1", "5f6dd902eacefe1e", "111f4e535613144c",
    "03e59fd5d9039a1a", "13435c60d7316960", "01da0ecf05a65ce4", "5098deed77a475dc",
    "30ecf94eb5e56062", "2e24e2384483e9a1", "c6df7aa01fdd450b", "60f4bc3416da67e0",
]
# the same with layouts always on, many illegal steps and symbolic sizes
# (re-pinned for issue 19: a stage with a layout may now be drawn at a loop of its consumer;
# all re-pinned for issue 15: pragma, prefetch, storage_align and create_group are drawn)
PINNED_LAYOUT = [
    "193b8166d2254d84", "402fc648735e911f", "d36587229357b12a", "cf59c4ed8e2d25fd",
    "15637e579257d741", "19d6a8644301c3f8", "e329f4fc02b2940f", "e222b6985c34c779",
    "cfbc81960757fcac", "13435c60d7316960", "d9f67a2729af4c7a", "0025512922d24fc6",
    "6858ac8b4cff3251", "f22d93cfe110e726", "c7c40d027821d386", "94c18c21c0f94251",
]


def _hashes(cfg):
    return [hashlib.sha256(generate(RandomSource(f"pinned:{i}"), cfg).script(exact=True)
                           .encode()).hexdigest()[:16] for i in range(16)]


def test_pinned_case_text():
    case = generate(RandomSource("pinned:3"), Config(max_stages=2))
    assert case.lines == PINNED_LINES
    assert case.data_seed == 13743


def test_pinned_case_hashes_default_config():
    assert _hashes(Config()) == PINNED_DEFAULT


def test_pinned_case_hashes_layouts_and_illegal_steps():
    cfg = Config(layout_percent=100, illegal_rate=30, symbolic_percent=50)
    assert _hashes(cfg) == PINNED_LAYOUT
