"""The one pipeline: PIPELINE is the order every caller runs, options select passes from it,
and the log shows every step (unchanged ones too)."""
import io

import numpy as np
import pytest

import tepad
from tepad import te
from tepad.errors import TepadError
from tepad.lower.pipeline import (BUILD, LOWER, PIPELINE, Options, PassLog, format_step,
                                  lower_for_codegen, run_pipeline, select)


def chain():
    A = te.placeholder((16, 10), name="A")
    B = te.compute((16, 10), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((16, 10), lambda i, j: B[i, j] + 1.0, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[1], factor=4)
    s[B].compute_at(s[C], xo)
    s[C].vectorize(xi)
    return s, [A, C]


def labels(opts=Options(), phases=(LOWER, BUILD)):
    return [label for label, _ in select(phases, opts)]


def test_lower_phase_comes_first_and_is_what_lower_returns():
    phases = [p.phase for p in PIPELINE]
    assert phases == sorted(phases, key=[LOWER, BUILD].index)
    s, args = chain()
    log = PassLog(keep=True)
    tepad.lower(s, args, log=log)
    assert [st.label for st in log.steps] == ["schedule_ops"] + labels(phases=(LOWER,))


def test_build_runs_every_step_in_order():
    s, args = chain()
    log = PassLog(keep=True)
    lower_for_codegen(s, args, log=log)
    assert [st.label for st in log.steps] == ["schedule_ops"] + labels()
    assert labels()[-2:] == ["simplify.flat_memory", "instrument_index_checks"]
    assert "flatten_physical_axes" in labels()


def test_options_select_passes_from_the_list():
    plain = labels()
    assert "check_assumes" not in plain and "instrument_bound_checks" not in plain
    checked = labels(Options(checked=True))
    assert checked.index("check_assumes") < checked.index("remove_assume")
    assert labels(Options(bounds_check=True))[-1] == "instrument_bound_checks"
    # bounds_check covers every access: the data-dependent checks are then not run again
    assert "instrument_index_checks" not in labels(Options(bounds_check=True))
    assert "instrument_index_checks" not in labels(Options(index_check=False))
    assert "flatten_physical_axes" not in labels(Options(target="texture"))


def test_build_from_schedule_equals_lower_then_build():
    s, args = chain()
    a = np.random.default_rng(0).random((16, 10), dtype="float32")
    c1, c2 = np.empty_like(a), np.empty_like(a)
    tepad.build(s, args)(a, c1)
    tepad.build(tepad.lower(s, args))(a, c2)
    np.testing.assert_array_equal(c1, c2)
    np.testing.assert_allclose(c1, a * 2.0 + 1.0, rtol=1e-6)
    one = lower_for_codegen(s, args).script()
    two = lower_for_codegen(tepad.lower(s, args)).script()
    assert one == two


def test_printing_shows_unchanged_passes(monkeypatch):
    s, args = chain()
    out = io.StringIO()
    lower_for_codegen(s, args, log=PassLog(print_ir=True, out=out))
    text = out.getvalue()
    assert "# ---- inject_rolling_buffer (unchanged" in text
    assert "# ---- after storage_flatten" in text
    assert "simplify.flat_memory: skipped, the step before changed nothing" in text
    # the lower phase flattened: build's storage_flatten finds nothing to do
    assert "# ---- storage_flatten.build (unchanged" in text


def test_env_switch_prints_from_build(monkeypatch, capsys):
    monkeypatch.setenv("TEPAD_PRINT_PASSES", "1")
    s, args = chain()
    tepad.lower.lower_for_codegen(s, args)
    assert "# ---- after vectorize_loop" in capsys.readouterr().out


def test_stop_before():
    s, args = chain()
    f = run_pipeline(tepad.lower(s, args), (BUILD,), stop_before="vectorize_loop")
    assert "T.vectorized" in f.script()
    with pytest.raises(TepadError, match="stop_before='nope' is not a step"):
        run_pipeline(tepad.lower(s, args), (BUILD,), stop_before="nope")


def test_format_step_of_an_unchanged_step_can_show_the_ir():
    s, args = chain()
    log = PassLog(keep=True)
    lower_for_codegen(s, args, log=log)
    unchanged = next(st for st in log.steps if not st.changed and not st.skipped)
    assert "(unchanged" in format_step(unchanged)
    assert "@T.prim_func" in format_step(unchanged, show_unchanged_ir=True)


def test_user_passes_run_at_their_phases():
    from tepad import tir
    from tepad.lower.pass_context import PassContext
    seen = []

    def spy(tag):
        @tir.transform.prim_func_pass(opt_level=0, name=f"spy{tag}")
        def p(func, mod, ctx):
            seen.append(tag)
            return func
        return p
    s, args = chain()
    ctx = PassContext(config={"tir.add_lower_pass": [(3, spy(3)), (0, spy(0)), (2, spy(2)),
                                                      (1, spy(1))]})
    with ctx:
        got = labels(Options.from_context())
        lower_for_codegen(s, args, opts=Options.from_context())
    assert seen == [0, 1, 2, 3]
    # phase 3 runs last but for the checks (they guard what the user passes produce)
    assert got[0] == "user0:spy0" and got[-2:] == ["user3:spy3", "instrument_index_checks"]
    # phase 1 ends the lower phase (after its storage_flatten, hoist_expression, simplify.flattened)
    assert got.index("user1:spy1") == got.index("simplify.flattened") + 1
    assert got.index("user2:spy2") == got.index("simplify.build_flattened") + 1
    with pytest.raises(TepadError, match="needs a phase 0-3"):
        PassContext(config={"tir.add_lower_pass": [(7, spy(7))]}).user_passes


def test_named_pass_objects_run_tepads_passes():
    from tepad import tir
    s, args = chain()
    f = tepad.lower(s, args)
    g = tir.transform.VectorizeLoop()(tir.transform.StorageFlatten()(
        tir.transform.RemoveAssume()(f)))
    assert "Ramp" in g.script()
    with pytest.raises(AttributeError, match="has no pass 'Nope'"):
        tir.transform.Nope()
