"""The reproducer: a case as a standalone Python program (define, schedule, build, run, check)."""
from __future__ import annotations

from .layouts import HELPERS as LAYOUT_HELPERS

# the same random_array as tepad/fuzz/arrays.py, and the runner's comparison, as script text
_HELPERS = [
    "def random_array(rng, shape, dtype):",
    "    if dtype.startswith('float'):",
    "        return rng.standard_normal(shape).astype(dtype)",
    "    lim = 8 if dtype == 'int8' else 100",
    "    return rng.integers(-lim, lim, size=shape).astype(dtype)",
    "",
    "def assert_close(got, want):",
    "    if got.dtype.kind == 'f':",
    "        scale = max(1.0, float(np.abs(want).max(initial=0)))",
    "        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * scale)",
    "    else:",
    "        np.testing.assert_array_equal(got, want)",
    "",
]


def script_text(case, exact=False, bounds_check=True) -> str:
    """A runnable program reproducing ``case``: its lines, then lower (exact bounds when
    ``exact``), build, and a run per binding of the symbolic sizes checked against
    ``tepad.testing.reference``; arguments with a layout are passed as physical arrays."""
    head = ["import numpy as np", "import tepad", "from tepad import te, tir",
            "from tepad.testing import reference", ""]
    body = list(case.lines)
    args = ", ".join(t.name for t in case.placeholders + case.outputs)
    outs = ", ".join(t.name for t in case.outputs)
    tail = [
        "",
        f"args = [{args}]",
        f"f = tepad.lower(s, args{', exact_bounds=True' if exact else ''})",
        "print(f)",
        f"mod = tepad.build(f, bounds_check={bounds_check})",
    ]
    if getattr(case, "gpu", False):
        tail[-1] = (f"mod = tepad.build(s, args, target='cuda', bounds_check={bounds_check}"
                    f"{', exact_bounds=True' if exact else ''}, emulate=True, race_check=True)")
    for values in (case.base_values or [{}]):
        env = {k: v for k, v in values.items()}
        tail.append(f"sizes = {env!r}")
        tail.append(f"rng = np.random.default_rng({case.data_seed})")
        tail.append("inputs = {")
        for t in case.placeholders:
            tail.append(f"    {t.name}: random_array(rng, {case.shape_text(t)}, "
                        f"{t.dtype!r}),")
        tail.append("}")
        if not case.has_layouts:
            tail.append("outs = [" + ", ".join(
                f"np.zeros({case.shape_text(t)}, {t.dtype!r})" for t in case.outputs) +
                "]")
            tail.append("mod(*inputs.values(), *outs)")
            tail.append(f"expect = reference([{outs}], inputs)")
            tail.append("for got, want in zip(outs, expect):")
            tail.append("    assert_close(got, want)")
            continue
        # transformed layouts: physical arrays in, logical arrays back (tepad.layout)
        tail.append("phys_in = [to_kernel(s[t], a) for t, a in inputs.items()]")
        tail.append("phys_out = [" + ", ".join(
            f"new_output(s[{t.name}], {case.shape_text(t)}, {t.dtype!r}, rng)"
            for t in case.outputs) + "]")
        tail.append("mod(*phys_in, *phys_out)")
        tail.append(f"expect = reference([{outs}], inputs)")
        tail.append(f"for t, phys, want in zip([{outs}], phys_out, expect):")
        tail.append("    got, problem = from_kernel(s[t], phys, want.shape)")
        tail.append("    assert problem is None, f'{t.name}: {problem}'")
        tail.append("    assert_close(got, want)")
    helpers = list(_HELPERS)
    if case.has_layouts:
        helpers += LAYOUT_HELPERS.strip("\n").splitlines() + [""]
    return "\n".join(head + helpers + body + tail) + "\n"


__all__ = ["script_text"]
