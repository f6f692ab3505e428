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
from ..tir.expr import ProducerLoad
from ..tir.functor import post_order_visit
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

    def __str__(self):
        lines = [f"producer {self.producer} {list(self.shape)}: consumers "
                 f"{', '.join(self.consumers) or '-'}; attach path (outermost first) "
                 f"{', '.join(self.path) or '- (computed at the root)'}"]
        if not self.exact_available:
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
        if self.total_iterations > len(self.iterations):
            lines.append(f"(first {len(self.iterations)} of {self.total_iterations} attach "
                         "iterations)")
        return "\n".join(lines)


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
    loads = []
    for body in cons.op.body:
        post_order_visit(body, lambda x: loads.append(x) if isinstance(x, ProducerLoad) and
                         x.producer.op is producer_op else None)
    env2 = dict(vals)
    env2.update(roots)
    pts = []
    for ld in loads:
        idx = [np.broadcast_to(evaluate(i, env2), (n,))[mask] for i in ld.indices]
        pts.append(np.stack(idx, axis=1) if idx else np.zeros((int(mask.sum()), 0)))
    if not pts:
        return np.zeros((0, len(producer_op.output(0).shape)), dtype=np.int64)
    return np.concatenate(pts).astype(np.int64)


def consumer_regions(s, stage, iterations=4, exact=True) -> RegionReport:
    """A ``RegionReport`` for producer ``stage`` (a name) over its first ``iterations``
    attach-path iterations (all of them is the whole run when computed at the root)."""
    s2 = s.copy().normalize()
    P = _find_stage(s2, stage)
    if isinstance(P.op, PlaceholderOp):
        raise TepadError(f"stage {P.name} is a placeholder: it has no bounds of its own; pick "
                         "a compute stage (the region plot is about what a stage computes)")
    bm_i = infer_bound(s2)
    bm_e, exact_err = None, None
    if exact:
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
    path = list(reversed(attach_path(P)))
    try:
        shape = tuple(int(d) for d in P.op.output(0).shape)
    except (TypeError, ValueError):
        raise TepadError(f"stage {P.name} has a symbolic shape; pictures need constant "
                         "shapes (bind the sizes in the example)") from None
    rep = RegionReport(P.name, shape, [iv.name for iv in P.op.axis], [iv.name for iv in path],
                       [c.name for c in consumers], exact_available=bm_e is not None,
                       exact_error=exact_err)
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
    roots = list(P.op.axis)
    for env in envs:
        def box(bm):
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
            np.zeros((0, len(roots)), dtype=np.int64)
        rep.iterations.append(Iteration({iv.name: env[iv.var] for iv in path}, ib, eb, epts,
                                        needed))
    rep.total_iterations = total
    return rep


def region_report(s, stage, iterations=4, exact=True) -> str:
    return str(consumer_regions(s, stage, iterations, exact))


def _plane(points, ndim):
    """Map N-d points to the 2-D plane drawn: (row, col) of the last two dims."""
    if ndim == 1:
        return np.zeros(len(points), dtype=np.int64), points[:, 0]
    return points[:, -2], points[:, -1]


def plot_regions(report: RegionReport, path, max_panels=4):
    """Draw ``report`` (from ``consumer_regions``) into a PNG at ``path``."""
    plt = require_matplotlib()
    from matplotlib.patches import Rectangle
    its = report.iterations[:max_panels]
    nd = len(report.shape)
    rows_n = 1 if nd == 1 else report.shape[-2]
    cols_n = report.shape[-1]
    ncols = min(len(its), 2) if nd > 1 else 1
    nrows = (len(its) + ncols - 1) // ncols
    cell = 0.22 if max(rows_n, cols_n) <= 40 else 9.0 / max(rows_n, cols_n)
    w = min(7.0, max(4.0, cols_n * cell + 1.5))
    h = min(7.5, max(2.2, rows_n * cell + 2.0))
    fig, axes = plt.subplots(nrows, ncols, figsize=(w * ncols, h * nrows), squeeze=False)
    for k, it in enumerate(its):
        ax = axes[k // ncols][k % ncols]
        grid = np.zeros((rows_n, cols_n))
        if len(it.needed):
            r, c = _plane(it.needed, nd)
            grid[r, c] = 1
        ax.imshow(grid, cmap="Greens", vmin=0, vmax=1.6, origin="upper",
                  extent=(-0.5, cols_n - 0.5, rows_n - 0.5, -0.5), interpolation="nearest")

        def rect(b, **kw):
            (r0, r1) = (0, 1) if nd == 1 else b[-2]
            c0, c1 = b[-1]
            ax.add_patch(Rectangle((c0 - 0.5, r0 - 0.5), c1 - c0, r1 - r0, fill=False, **kw))
        rect(it.interval_box, edgecolor="tab:red", linestyle="--", linewidth=2,
             label=f"interval box ({it.interval_count})")
        if it.exact_box is not None:
            rect(it.exact_box, edgecolor="tab:blue", linewidth=1.5,
                 label=f"exact-mode box ({it.exact_count})")
        if it.exact_points is not None and len(it.exact_points):
            r, c = _plane(it.exact_points, nd)
            ax.scatter(c, r, s=6, marker="x", color="tab:blue", label="exact-mode set")
        ax.plot([], [], "s", color="tab:green", label=f"needed by consumers ({len(it.needed)})")
        ax.set_xlim(-0.5, cols_n - 0.5)
        ax.set_ylim(rows_n - 0.5, -0.5)
        title = ", ".join(f"{a}={v}" for a, v in it.env.items()) or "computed at the root"
        ax.set_title(f"{report.producer}: {title}", fontsize=9)
        ax.set_xlabel(report.axes[-1])
        if nd > 1:
            ax.set_ylabel(report.axes[-2] + (" (last 2 of %d dims)" % nd if nd > 2 else ""))
        else:
            ax.set_yticks([])
        if max(rows_n, cols_n) <= 64:
            ax.set_xticks(np.arange(-0.5, cols_n, 1), minor=True)
            ax.set_yticks(np.arange(-0.5, rows_n, 1) if nd > 1 else [], minor=True)
            ax.grid(which="minor", color="0.85", linewidth=0.4)
            ax.tick_params(which="minor", length=0)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12 if nd > 1
                                                                  else -0.5),
                  ncol=2, frameon=False)
    for k in range(len(its), nrows * ncols):
        axes[k // ncols][k % ncols].axis("off")
    fig.suptitle(f"region of {report.producer} per attach iteration "
                 f"(consumers: {', '.join(report.consumers)})", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


__all__ = ["consumer_regions", "region_report", "plot_regions", "RegionReport", "Iteration"]
