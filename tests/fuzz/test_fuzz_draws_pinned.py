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
]

# sha256(case.script(exact=True))[:16] of cases "pinned:0".."pinned:15"
PINNED_DEFAULT = [
    "d3d4ffb4a09bba88", "e6ff69601eff5617", "035e3085f9e98e6b", "427d3ce9cf9a6251",
    "3a51f45dd9369a41", "debd6e31b5ecedd1", "08b341437d9dbbf2", "e51c9def20b85f87",
    "036c71a05f6ffb18", "ee9ed7083c31d7c0", "07352ca06cdfb0af", "6d16647aa7a252b0",
    "26b4abdc26ac8462", "c51ad64c42f18b01", "afe062fa9dbd767e", "18bd3987ca1c5569",
]
# the same with layouts always on, many illegal steps and symbolic sizes
# (re-pinned for issue 19: a stage with a layout may now be drawn at a loop of its consumer)
PINNED_LAYOUT = [
    "52b1b998ec912539", "e1b66c4dfb254ceb", "78a1d6091c6ddb6d", "56afd7d77c734078",
    "aaba4287bc7d870d", "40d17638e0ee09b5", "c00b4538ea8f278c", "aa088060ee3cdf5f",
    "1f823d6c1e1dff98", "ee9ed7083c31d7c0", "d86c21529dbec509", "d378265a8e8e5436",
    "9c384a6ff4c698dd", "40d09efed9468d4a", "e14cb16daf322fd9", "db1faa5143c9688c",
]


def _hashes(cfg):
    return [hashlib.sha256(generate(RandomSource(f"pinned:{i}"), cfg).script(exact=True)
                           .encode()).hexdigest()[:16] for i in range(16)]


def test_pinned_case_text():
    case = generate(RandomSource("pinned:3"), Config(max_stages=2))
    assert case.lines == PINNED_LINES
    assert case.data_seed == 52967


def test_pinned_case_hashes_default_config():
    assert _hashes(Config()) == PINNED_DEFAULT


def test_pinned_case_hashes_layouts_and_illegal_steps():
    cfg = Config(layout_percent=100, illegal_rate=30, symbolic_percent=50)
    assert _hashes(cfg) == PINNED_LAYOUT
