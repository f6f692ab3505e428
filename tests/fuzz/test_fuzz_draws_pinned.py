"""The fuzzer draws the same cases for the same seed (pinned text and hashes).

Case ``i`` of a seed must stay the same program across refactors: reported failures are
replayed by seed and index (``python -m tepad.fuzz --seed S --replay i``). A deliberate change
of what is drawn changes these pins; update them in the same commit and say so.
"""
import hashlib

from tepad.fuzz.generator import Config, RandomSource, generate

PINNED_LINES = [
    "A = te.placeholder((9, 1), 'float32', name='A')",
    "T0 = te.compute((9, 1), lambda i, j: (te.floor(tir.min(tir.max(A[i, j] * 4.0, tir.const(-100.0, 'float32')), tir.const(100.0, 'float32')))).astype('int8'), name='T0')",
    's = te.create_schedule([T0.op])',
    'T0_i_0 = s[T0].leaf_iter_vars[0]',
    'T0_j_1 = s[T0].leaf_iter_vars[1]',
    'T0_xo2, T0_yo3, T0_xi4, T0_yi5 = s[T0].tile(T0_i_0, T0_j_1, 4, 2)',
    'T0_xo6, T0_yo7, T0_xi8, T0_yi9 = s[T0].tile(T0_xo2, T0_yo3, 2, 3)',
    'T0_xo10, T0_yo11, T0_xi12, T0_yi13 = s[T0].tile(T0_xi4, T0_yi5, 4, 5)',
    's[T0].reorder(T0_xo6, T0_yo7, T0_xi8, T0_yi9, T0_xo10, T0_yo11, T0_xi12, T0_yi13)',
    's[T0].unroll(T0_xi8)',
    "s[T0].set_scope('warp')",
    'from tepad.fuzz.tensorize import matching_intrinsic',
    'T0_intrin = matching_intrinsic(s[T0], 1)',
    's[T0].tensorize(T0_yi13, T0_intrin)',
]

# sha256(case.script(exact=True))[:16] of cases "pinned:0".."pinned:15"
PINNED_DEFAULT = [
    "6a76ec6a3a1b68da", "0fe90e87e7b5e4e3", "340e1d1b66e4a91b", "be9ee6dff4faaee9",
    "f97e1b2f5249c5d4", "2156b6e8b53e3370", "8ac20b71bb48b4dc", "bb1344ff65acab11",
    "dc01c5a814d2975c", "e7e14b86ba0b6f5c", "7750a3b24fb2e94a", "cbb48b9ae8fad00a",
    "f04259422ee877e9", "47b29172dce6fbd1", "eddd01788b3afdbc", "81d9c4ef9b35f85d",
]
# the same with layouts always on, many illegal steps and symbolic sizes
# (re-pinned for issue 19: a stage with a layout may now be drawn at a loop of its consumer;
# all re-pinned for issue 15: pragma, prefetch, storage_align and create_group are drawn)
PINNED_LAYOUT = [
    "8f0e84b1559f5132", "591a6ab6f228bce3", "bbc8e2cd7f62e2a0", "1bc02525d6031ace",
    "e7028c024a9232a6", "dbccc73df9314290", "7277de03de925f44", "d3b43da500aa9db8",
    "cfbc81960757fcac", "e7e14b86ba0b6f5c", "3d372096ea1e56c5", "332d9b158ea674d0",
    "368dc11eef6e800b", "9965a8315021d04a", "2f4eba24ff566ebe", "94c18c21c0f94251",
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
