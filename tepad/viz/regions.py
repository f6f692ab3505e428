"""What one producer computes vs what its consumers read, per iteration of its attach path.

For a producer stage P (by name) of schedule ``s`` this enumerates a few iterations of the
loops enclosing P (its attach path, outermost first) and, for each, gives

* the **interval box**: P's root ranges from ``infer_bound(s)`` (what the code computes);
* the **exact box** (and exact predicate, when exact mode made one): the same from
  ``infer_bound(s, exact=True)``, when exact mode is available;
* the **needed set**: every element of P read by the consumers' iterations that run inside
  this attach iteration, found by enumerating the consumers' loops (brute force, numpy) --
  independent of both bound inference implementations, so it is a check on them.

``region_report`` is text; ``plot_regions`` draws it with matplotlib.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import TepadError
from ..arith import Analyzer
from ..bound import attach_path, infer_bound, pass_up_index
from ..tensor.tensor import PlaceholderOp
from ..tir.functor import Visitor
from .deps import require_matplotlib
from .evaluate import Unbound, Unsupported, evaluate

MAX_POINTS = 2_000_000


@dataclass
class Iteration:
    env: dict                      # attach-path var name -> value
    interval_box: list             # [(lo, hi_exclusive), ...] per producer axis
    exact_box: list | None
    exact_points: np.ndarray | None   # computed points in exact mode when a predicate applies
    needed: np.ndarray             # (N, ndim) unique points read by consumers
    outside: int = 0               # read points outside the producer's shape (left out)

    def coincide(self):
        """Which of the interval box, the exact-mode region and the needed set are the same
        set of elements: a list of groups of the names "interval", "exact", "needed"."""
        sets = {"interval": _box_key(self.interval_box)}
        if self.exact_points is not None:
            sets["exact"] = _points_key(self.exact_points)
        elif self.exact_box is not None:
            sets["exact"] = _box_key(self.exact_box)
        sets["needed"] = _points_key(self.needed)
        groups = []
        for name, key in sets.items():
            for gr in groups:
                if _same(sets[gr[0]], key):
                    gr.append(name)
                    break
            else:
                groups.append([name])
        return groups

    @property
    def interval_count(self):
        return int(np.prod([hi - lo for lo, hi in self.interval_box]))

    @property
    def exact_count(self):
        if self.exact_points is not None:
            return len(self.exact_points)
        if self.exact_box is None:
            return None
        return int(np.prod([hi - lo for lo, hi in self.exact_box]))


@dataclass
class RegionReport:
    producer: str
    shape: tuple
    axes: list
    path: list                      # attach path names, outermost first
    consumers: list
    iterations: list = field(default_factory=list)
    total_iterations: int = 1
    exact_available: bool = False
    exact_error: str | None = None
    is_input: bool = False          # a placeholder: given whole, its box is its shape

    def __str__(self):
        if self.is_input:
            lines = [f"input {self.producer} {list(self.shape)} (a placeholder: given whole, "
                     f"so its box is its shape): consumers {', '.join(self.consumers) or '-'}"]
        else:
            lines = [f"producer {self.producer} {list(self.shape)}: consumers "
                     f"{', '.join(self.consumers) or '-'}; attach path (outermost first) "
                     f"{', '.join(self.path) or '- (computed at the root)'}"]
        if not self.exact_available and not self.is_input:
            lines.append(f"exact mode unavailable ({self.exact_error}); interval boxes only")
        hdr = ["iteration", "interval box", "elements", "exact box", "elements", "needed",
               "needed bbox"]
        rows = [hdr]
        for it in self.iterations:
            name = ", ".join(f"{k}={v}" for k, v in it.env.items()) or "(whole run)"
            rows.append([name, _box(it.interval_box), str(it.interval_count),
                         _box(it.exact_box) if it.exact_box is not None else "n/a",
                         str(it.exact_count) if it.exact_count is not None else "n/a",
                         str(len(it.needed)), _box(_bbox(it.needed, len(self.shape)))])
        w = [max(len(r[k]) for r in rows) for k in range(len(hdr))]
        lines += ["  ".join(c.ljust(w[k]) for k, c in enumerate(r)).rstrip() for r in rows]
        skipped = sum(it.outside for it in self.iterations)
        if skipped:
            lines.append(f"({skipped} guarded or out-of-shape reads outside "
                         f"{list(self.shape)} left out of 'needed')")
        if self.total_iterations > len(self.iterations):
            lines.append(f"(first {len(self.iterations)} of {self.total_iterations} attach "
                         "iterations)")
        return "\n".join(lines)


def _box_key(b):
    return ("box", tuple((int(lo), int(hi)) for lo, hi in b))


def _points_key(p):
    return ("points", p)


def _same(a, b):
    """Whether two region keys (a box or a point array) hold the same elements."""
    if a[0] == "box" and b[0] == "box":
        return a[1] == b[1] or (_count(a) == 0 and _count(b) == 0)
    if a[0] == "box":
        a, b = b, a
    pts = a[1]
    if b[0] == "box":
        if len(pts) != _count(b):
            return False
        if not len(pts):
            return True
        lo = np.array([x for x, _ in b[1]]); hi = np.array([y for _, y in b[1]])
        inside = np.all((pts >= lo) & (pts < hi), axis=1)
        return bool(inside.all()) and len(np.unique(pts, axis=0)) == len(pts)
    p, q = np.unique(pts, axis=0), np.unique(b[1], axis=0)
    return p.shape == q.shape and bool(np.array_equal(p, q))


def _count(key):
    return int(np.prod([max(0, hi - lo) for lo, hi in key[1]]))


def _box(b):
    if b is None:
        return "-"
    return "x".join(f"[{lo},{hi})" for lo, hi in b)


def _bbox(points, ndim):
    if len(points) == 0:
        return None
    return [(int(points[:, k].min()), int(points[:, k].max()) + 1) for k in range(ndim)]


def _find_stage(s, name):
    names = []
    for st in s.stages:
        if st.name == name or st.op.name == name:
            return st
        names.append(st.name)
    raise TepadError(f"no stage named {name!r}; stages: {', '.join(names)}")


def _loop_nest(stage):
    return list(reversed(attach_path(stage))) + list(stage.leaf_iter_vars)


def _enumerate(loops, bmap, env):
    """Arrays (one per loop var, plus env) of every iteration of ``loops``, ragged ranges ok."""
    cur = dict(env)
    n = 1
    for iv in loops:
        r = bmap[iv]
        mn = np.broadcast_to(np.asarray(evaluate(r.min, cur), dtype=np.int64), (n,))
        ext = np.broadcast_to(np.asarray(evaluate(r.extent, cur), dtype=np.int64), (n,))
        ext = np.maximum(ext, 0)
        total = int(ext.sum())
        if total > MAX_POINTS:
            raise TepadError(f"too many iterations to enumerate ({total}); use a smaller size")
        rep = {v: (np.repeat(np.broadcast_to(a, (n,)), ext) if np.ndim(a) else a)
               for v, a in cur.items()}
        start = np.repeat(np.cumsum(ext) - ext, ext)
        rep[iv.var] = np.repeat(mn, ext) + (np.arange(total, dtype=np.int64) - start)
        cur, n = rep, total
    return cur, n


def _consumer_points(cons, producer_op, bmap, env, ana):
    loops = [iv for iv in _loop_nest(cons) if iv.var not in env]
    vals, n = _enumerate(loops, bmap, env)
    if n == 0:
        return np.zeros((0, producer_op.output(0).ndim), dtype=np.int64)
    value = {iv: iv.var for iv in cons.leaf_iter_vars}
    pass_up_index(cons, bmap, value, ana)
    mask = np.ones(n, dtype=bool)
    roots = {}
    for iv in cons.op.root_iter_vars:
        v = np.broadcast_to(evaluate(value[iv], vals), (n,))
        roots[iv.var] = v
        for r in (bmap[iv], iv.dom):
            if r is None:
                continue
            lo = evaluate(r.min, vals)
            mask &= (v >= lo) & (v < lo + evaluate(r.extent, vals))
    loads = _GuardedLoads(producer_op)
    for body in cons.op.body:
        loads.visit(body)
    env2 = dict(vals)
    env2.update(roots)
    pts = []
    for ld, guards in loads.found:
        m = mask.copy()
        for cond, want in guards:         # the load runs only where its guards hold
            try:
                c = np.broadcast_to(evaluate(cond, env2), (n,)).astype(bool)
            except (Unbound, Unsupported):
                continue                  # a guard we cannot evaluate: count the load
            m &= c if want else ~c
        idx = [np.broadcast_to(evaluate(i, env2), (n,))[m] for i in ld.indices]
        pts.append(np.stack(idx, axis=1) if idx else np.zeros((int(m.sum()), 0)))
    if not pts:
        return np.zeros((0, len(producer_op.output(0).shape)), dtype=np.int64)
    return np.concatenate(pts).astype(np.int64)


class _GuardedLoads(Visitor):
    """The loads of ``producer_op`` with the ``if_then_else`` / reduction conditions that
    guard them: ``found`` is a list of ``(load, [(condition, holds), ...])``."""

    def __init__(self, producer_op):
        self.op, self.guards, self.found = producer_op, [], []

    def visit_ProducerLoad(self, x):
        if x.producer.op is self.op:
            self.found.append((x, list(self.guards)))
        self.generic_visit(x)

    def _under(self, cond, holds, node):
        self.guards.append((cond, holds))
        try:
            self.visit(node)
        finally:
            self.guards.pop()

    def visit_Call(self, x):
        if x.op in ("tir.if_then_else", "if_then_else") and len(x.args) == 3:
            self.visit(x.args[0])
            self._under(x.args[0], True, x.args[1])
            self._under(x.args[0], False, x.args[2])
        else:
            self.generic_visit(x)

    def visit_Reduce(self, x):
        cond = getattr(x, "condition", None)
        for f in ("condition", "init"):
            v = getattr(x, f, None)
            if v is not None:
                self.visit(v)
        if cond is None:
            self.visit(x.source)
        else:
            self._under(cond, True, x.source)


def _in_shape(points, shape):
    """Split read points into those inside ``shape`` and the count of the others."""
    if not len(points):
        return points, 0
    ok = np.all((points >= 0) & (points < np.array(shape, dtype=np.int64)), axis=1)
    return points[ok], int((~ok).sum())


def consumer_regions(s, stage, iterations=4, exact=True) -> RegionReport:
    """A ``RegionReport`` for producer ``stage`` (a name) over its first ``iterations``
    attach-path iterations (all of them is the whole run when computed at the root)."""
    s2 = s.copy().normalize()
    P = _find_stage(s2, stage)
    is_input = isinstance(P.op, PlaceholderOp)
    bm_i = infer_bound(s2)
    bm_e, exact_err = None, None
    if is_input:
        exact_err = "an input is given whole"
    elif exact:
        try:
            bm_e = infer_bound(s2, exact=True)
        except TypeError as e:             # an older infer_bound without exact=
            exact_err = f"infer_bound(exact=True) unsupported: {e}"
        except Exception as e:             # noqa: BLE001 - report, keep the interval picture
            exact_err = f"{type(e).__name__}: {e}"
    else:
        exact_err = "not requested"
    outs = {P.op.output(k) for k in range(P.op.num_outputs)}
    consumers = [st for st in s2.stages if not isinstance(st.op, PlaceholderOp) and
                 any(t in outs for t in st.op.input_tensors)]
    path = [] if is_input else list(reversed(attach_path(P)))
    try:
        shape = tuple(int(d) for d in P.op.output(0).shape)
    except (TypeError, ValueError):
        raise TepadError(f"stage {P.name} has a symbolic shape; pictures need constant "
                         "shapes (bind the sizes in the example)") from None
    axes = [f"dim{k}" for k in range(len(shape))] if is_input else \
        [iv.name for iv in P.op.axis]
    rep = RegionReport(P.name, shape, axes, [iv.name for iv in path],
                       [c.name for c in consumers], exact_available=bm_e is not None,
                       exact_error=exact_err, is_input=is_input)
    ana = Analyzer()
    # the attach iterations, outermost first, lexicographic
    envs, total = [], 1
    if path:
        vals, total = _enumerate(path, bm_i, {})
        for k in range(min(iterations, total)):
            envs.append({iv.var: int(np.broadcast_to(vals[iv.var], (total,))[k])
                         for iv in path})
    else:
        envs.append({})
    roots = [] if is_input else list(P.op.axis)
    for env in envs:
        def box(bm):
            if is_input:
                return [(0, d) for d in shape]
            out = []
            for iv in roots:
                r = bm[iv]
                lo = int(evaluate(r.min, env))
                out.append((lo, lo + int(evaluate(r.extent, env))))
            return out
        ib = box(bm_i)
        eb, epts = None, None
        if bm_e is not None:
            try:
                eb = box(bm_e)
                pred = getattr(bm_e, "predicates", {}).get(P.op)
                if pred is not None:
                    grids = np.indices([hi - lo for lo, hi in eb]).reshape(len(eb), -1)
                    genv = dict(env)
                    for k, iv in enumerate(roots):
                        genv[iv.var] = grids[k] + eb[k][0]
                    preds = pred if isinstance(pred, (list, tuple)) else [pred]
                    m = np.ones(grids.shape[1:], dtype=bool)
                    for p_ in preds:
                        m &= np.broadcast_to(evaluate(p_, genv), grids.shape[1:])
                    epts = (grids[:, m] + np.array([lo for lo, _ in eb])[:, None]).T
            except (Unbound, Unsupported, KeyError) as e:
                rep.exact_error = f"exact region not evaluable: {e}"
        pts = [_consumer_points(c, P.op, bm_i, env, ana) for c in consumers]
        needed = np.unique(np.concatenate(pts), axis=0) if pts else \
            np.zeros((0, len(shape)), dtype=np.int64)
        needed, outside = _in_shape(needed, shape)
        rep.iterations.append(Iteration({iv.name: env[iv.var] for iv in path}, ib, eb, epts,
                                        needed, outside))
    rep.total_iterations = total
    return rep


def region_report(s, stage, iterations=4, exact=True) -> str:
    return str(consumer_regions(s, stage, iterations, exact))


def _plane(points, ndim):
    """Map N-d points to the 2-D plane drawn: (row, col) of the last two dims."""
    if ndim == 1:
        return np.zeros(len(points), dtype=np.int64), points[:, 0]
    return points[:, -2], points[:, -1]


_NAMES = {"interval": "interval box", "exact": "exact-mode region", "needed": "needed set"}


def coincide_message(report: RegionReport, it: Iteration) -> str:
    """One line on which regions of ``it`` are the same elements ("" when none are)."""
    if not len(it.needed) and not it.interval_count:
        return "empty here"
    groups = [g for g in it.coincide() if len(g) > 1]
    if not groups:
        return ""
    names = dict(_NAMES, interval="buffer (given whole)" if report.is_input else
                 "interval box")
    g = groups[0]
    n = it.interval_count if "interval" in g else len(it.needed)
    if len(g) == 2:
        return f"{names[g[0]]} and {names[g[1]]} coincide ({n} elements)"
    return f"{names[g[0]]}, {names[g[1]]} and {names[g[2]]} coincide ({n} elements)"


def _counts(report, it):
    parts = [("buffer " if report.is_input else "interval ") + str(it.interval_count)]
    if it.exact_count is not None:
        parts.append(f"exact {it.exact_count}")
    parts.append(f"needed {len(it.needed)}")
    if it.outside:
        parts.append(f"{it.outside} outside the shape")
    return ", ".join(parts)


def regions_figure(report: RegionReport, max_panels=4):
    """The matplotlib figure of ``report``: a panel per attach iteration (the last two
    dimensions of the producer), one legend for the figure below the panels. Where regions
    coincide a single outline is drawn and the panel's title says so."""
    plt = require_matplotlib()
    from matplotlib.patches import Rectangle
    from matplotlib.ticker import MaxNLocator
    its = report.iterations[:max_panels]
    nd = len(report.shape)
    rows_n = 1 if nd == 1 else report.shape[-2]
    cols_n = report.shape[-1]
    ncols = min(len(its), 2) if nd > 1 else 1
    nrows = (len(its) + ncols - 1) // ncols
    cell = 0.22 if max(rows_n, cols_n) <= 40 else 9.0 / max(rows_n, cols_n)
    w = min(6.5, max(4.5, cols_n * cell + 1.5))
    h = min(6.5, max(1.6, rows_n * cell + 1.2))
    fig, axes = plt.subplots(nrows, ncols, figsize=(w * ncols, h * nrows + 0.9),
                             squeeze=False, layout="constrained")
    fig.get_layout_engine().set(h_pad=0.08, hspace=0.06)
    handles = {}

    def rect(ax, b, **kw):
        (r0, r1) = (0, 1) if nd == 1 else b[-2]
        c0, c1 = b[-1]
        p = Rectangle((c0 - 0.5, r0 - 0.5), c1 - c0, r1 - r0, fill=False, **kw)
        ax.add_patch(p)
        handles.setdefault(kw["label"], p)

    interval_name = "buffer (an input, given whole)" if report.is_input else "interval box"
    for k, it in enumerate(its):
        ax = axes[k // ncols][k % ncols]
        grid = np.zeros((rows_n, cols_n))
        if len(it.needed):
            r, c = _plane(it.needed, nd)
            grid[r, c] = 1
        ax.imshow(grid, cmap="Greens", vmin=0, vmax=1.6, origin="upper", aspect="auto"
                  if nd == 1 else "equal",
                  extent=(-0.5, cols_n - 0.5, rows_n - 0.5, -0.5), interpolation="nearest")
        if len(it.needed):
            handles.setdefault("needed by consumers", plt.Line2D(
                [], [], marker="s", linestyle="", color="tab:green", markersize=8))
        groups = it.coincide()
        g_int = next(g for g in groups if "interval" in g)
        if len(g_int) == 3:
            rect(ax, it.interval_box, edgecolor="black", linewidth=2,
                 label=f"{interval_name} = exact-mode region = needed set")
        elif g_int == ["interval", "exact"]:
            rect(ax, it.interval_box, edgecolor="tab:purple", linestyle="--", linewidth=2,
                 label=f"{interval_name} = exact-mode region")
        elif g_int == ["interval", "needed"]:
            rect(ax, it.interval_box, edgecolor="black", linewidth=2,
                 label=f"{interval_name} = needed set")
        else:
            rect(ax, it.interval_box, edgecolor="tab:red", linestyle="--", linewidth=2,
                 label=interval_name)
        if "exact" not in g_int:
            if it.exact_points is not None and len(it.exact_points):
                r, c = _plane(it.exact_points, nd)
                sc = ax.scatter(c, r, s=6, marker="x", color="tab:blue")
                handles.setdefault("exact-mode set", sc)
            elif it.exact_box is not None:
                rect(ax, it.exact_box, edgecolor="tab:blue", linewidth=1.5,
                     label="exact-mode box")
        ax.set_xlim(-0.5, cols_n - 0.5)
        ax.set_ylim(rows_n - 0.5, -0.5)
        where = ", ".join(f"{a}={v}" for a, v in it.env.items()) or (
            "the whole run" if report.is_input else "computed at the root")
        msg = coincide_message(report, it) or _counts(report, it)
        if not len(it.needed) and not report.consumers:
            msg = f"nothing reads {report.producer} (no consumers); {_counts(report, it)}"
        ax.set_title(f"{report.producer}: {where}\n{msg}", fontsize=8.5)
        ax.set_xlabel(report.axes[-1])
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        if nd > 1:
            ax.set_ylabel(report.axes[-2] + (" (last 2 of %d dims)" % nd if nd > 2 else ""))
        else:
            ax.set_yticks([])
        if max(rows_n, cols_n) <= 64:
            ax.set_xticks(np.arange(-0.5, cols_n, 1), minor=True)
            ax.set_yticks(np.arange(-0.5, rows_n, 1) if nd > 1 else [], minor=True)
            ax.grid(which="minor", color="0.85", linewidth=0.4)
            ax.tick_params(which="minor", length=0)
    for k in range(len(its), nrows * ncols):
        axes[k // ncols][k % ncols].axis("off")
    if handles:
        fig.legend(list(handles.values()), list(handles.keys()), loc="outside lower center",
                   ncol=min(3, len(handles)), fontsize=8, frameon=False)
    cons = ", ".join(report.consumers) or "none"
    fig.suptitle(f"input {report.producer}: what its consumers read (consumers: {cons})"
                 if report.is_input else f"region of {report.producer} per attach iteration "
                 f"(consumers: {cons})", fontsize=10)
    return fig


def plot_regions(report: RegionReport, path, max_panels=4):
    """Draw ``report`` (from ``consumer_regions``) into a PNG at ``path``."""
    plt = require_matplotlib()
    fig = regions_figure(report, max_panels)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


__all__ = ["consumer_regions", "region_report", "plot_regions", "regions_figure",
           "coincide_message", "RegionReport", "Iteration"]
