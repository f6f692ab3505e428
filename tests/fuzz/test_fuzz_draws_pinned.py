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
    "T0_lc = s.cache_write(T0, 'local')",
    "s[T0_lc].set_scope('local')",
]

# sha256(case.script(exact=True))[:16] of cases "pinned:0".."pinned:15"
PINNED_DEFAULT = [
    "d1e07c32b6482b3d", "6dff2d1c99e3b2d9", "c362be63ff349595", "9ef6f80e54c91958",
    "13abc4fc2115ef5a", "e1589ccd50473649", "089c187870b76f5f", "dab47283f5f315e6",
    "a4e17d21d837de9d", "4ca3933e78e8c8a1", "ed21ae93fc8a2a22", "b5e24a53c546207d",
    "4f8147ecc6d6a41a", "f158a4f0a306bea3", "440094fb46195181", "04e2a66a04e2cdc0",
]
# the same with layouts always on, many illegal steps and symbolic sizes
# (re-pinned: split(..., tail='shift') is drawn;
# re-pinned: a stage with a layout may now be drawn at a loop of its consumer;
# all re-pinned: pragma, prefetch, storage_align and create_group are drawn)
PINNED_LAYOUT = [
    "1f8448f5987e6ca7", "758010a490db3519", "e6e3d099dee63ba4", "8a25dda1bc952910",
    "a0318cfdd39d28dc", "7ea208033d443e3e", "d312954958a61047", "273ad2a674cfe270",
    "58e5df43ebd140d6", "4ca3933e78e8c8a1", "a9b3cb56c7bad742", "0c5585de4b046e58",
    "801784402957484c", "efd22d403d27287f", "d083313ca0ea9257", "28f7f8d79cfa3a87",
]


def _hashes(cfg):
    return [hashlib.sha256(generate(RandomSource(f"pinned:{i}"), cfg).script(exact=True)
                           .encode()).hexdigest()[:16] for i in range(16)]


def test_pinned_case_text():
    case = generate(RandomSource("pinned:3"), Config(max_stages=2))
    assert case.lines == PINNED_LINES
    assert case.data_seed == 22672


def test_pinned_case_hashes_default_config():
    assert _hashes(Config()) == PINNED_DEFAULT


def test_pinned_case_hashes_layouts_and_illegal_steps():
    cfg = Config(layout_percent=100, illegal_rate=30, symbolic_percent=50)
    assert _hashes(cfg) == PINNED_LAYOUT
