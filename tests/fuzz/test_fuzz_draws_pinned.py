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
    "e55a7c9243a97fa9", "396c7369eb2ec4bb", "616aa5dace65856d", "1fa85936c7280cb1",
    "c927c0324c301d87", "debd6e31b5ecedd1", "6adfe34d1913e61c", "62c66f18cd776294",
    "90d3e3a2afb5d490", "964ce93c875e85be", "5f5749ce4f4d61e1", "344dff423bc8727c",
    "f7fdc8a73c0ef612", "2e1f4f4db9333a61", "101ad6d85854575a", "e4b765b4ea51bdcb",
]
# the same with layouts always on, many illegal steps and symbolic sizes
PINNED_LAYOUT = [
    "2945b5685dac284a", "507dc94b4f55b07f", "d0f4a5357de5f515", "83ab9ddcd95277e9",
    "48e8914d48cd25e3", "3310224208ce97d6", "ce2285029ec41c13", "3872a7a4dfa7c0ec",
    "412305c1c8d84d66", "964ce93c875e85be", "5b87d4d568dfbddb", "d4c2d14408bb4602",
    "a6677c6e04e08daf", "1cf548578a33191f", "cf0b3c84638fa5b1", "db1faa5143c9688c",
]


def _hashes(cfg):
    return [hashlib.sha256(generate(RandomSource(f"pinned:{i}"), cfg).script(exact=True)
                           .encode()).hexdigest()[:16] for i in range(16)]


def test_pinned_case_text():
    case = generate(RandomSource("pinned:3"), Config(max_stages=2))
    assert case.lines == PINNED_LINES
    assert case.data_seed == 38792


def test_pinned_case_hashes_default_config():
    assert _hashes(Config()) == PINNED_DEFAULT


def test_pinned_case_hashes_layouts_and_illegal_steps():
    cfg = Config(layout_percent=100, illegal_rate=30, symbolic_percent=50)
    assert _hashes(cfg) == PINNED_LAYOUT
