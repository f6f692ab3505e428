"""Pictures of ``transform_layout``: where each logical element lands, and the padding.

``layout_cells(s, name)`` gives the physical array of logical (row-major flat) indices, -1 in
the padding, using ``tepad.layout.to_physical`` on the stage's own maps; ``layout_text`` draws
it in the terminal like RFC 0077's boxes; ``plot_layout`` draws logical and physical grids
with matplotlib.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import TepadError
from ..layout import physical_shape, to_physical
from .deps import require_matplotlib

PAD = -1


@dataclass
class LayoutCells:
    name: str
    logical_shape: tuple
    physical_shape: tuple
    grouped_shape: tuple | None     # after axis-separator grouping (None without separators)
    axis_separators: list
    maps: list
    pad_value: object
    physical: np.ndarray            # logical flat index per physical cell, PAD in padding

    @property
    def n_pad(self):
        return int((self.physical == PAD).sum())

    def mapping_text(self):
        return "; then ".join(str(m) for m in self.maps)


def _stage(s, name):
    for st in s.stages:
        if st.name == name or st.op.name == name:
            return st
    raise TepadError(f"no stage named {name!r}; stages: "
                     f"{', '.join(st.name for st in s.stages)}")


def transformed_stages(s):
    return [st.name for st in s.stages if getattr(st, "layout_transforms", None)]


def layout_cells(s, name) -> LayoutCells:
    st = _stage(s, name)
    maps = list(getattr(st, "layout_transforms", []) or [])
    if not maps:
        have = transformed_stages(s)
        raise TepadError(f"stage {st.name} has no transform_layout"
                         + (f"; stages with one: {', '.join(have)}" if have else
                            "; no stage of this schedule has one"))
    t = st.op.output(0)
    try:
        lshape = tuple(int(d) for d in t.shape)
    except (TypeError, ValueError):
        raise TepadError(f"stage {st.name} has a symbolic shape; the layout picture needs "
                         "constant shapes") from None
    n = int(np.prod(lshape)) if lshape else 1
    logical = np.arange(n, dtype=np.int64).reshape(lshape) + 1
    phys = to_physical(logical, maps, pad_value=0) - 1
    pshape = tuple(physical_shape(lshape, maps))
    seps = list(getattr(st, "axis_separators", []) or [])
    grouped = None
    if seps:
        bounds = [0] + seps + [len(pshape)]
        grouped = tuple(int(np.prod(pshape[a:b])) for a, b in zip(bounds, bounds[1:]))
    return LayoutCells(st.name, lshape, pshape, grouped, seps, maps,
                       getattr(st, "pad_value", None), phys)


def _row_split(shape, grouped=None, seps=()):
    """``k``: the 2-d picture of an array of ``shape`` has the dims before ``k`` as rows and
    the others as columns (the axis separator when there is one, making two groups)."""
    if grouped is not None and len(grouped) == 2 and seps:
        return seps[0]
    if len(shape) <= 1:
        return 0
    cols, k = shape[-1], len(shape) - 1   # merge trailing dims until a row has >= 8 cells
    while cols < 8 and k > 1:
        k -= 1
        cols *= shape[k]
    return k


def _as_2d(a, grouped=None, seps=()):
    if grouped is not None and len(grouped) == 2:
        return a.reshape(grouped)
    if a.ndim == 0:
        return a.reshape(1, 1)
    k = _row_split(a.shape, grouped, seps)
    return a.reshape(int(np.prod(a.shape[:k])), -1)


def physical_axis_names(c: LayoutCells) -> list:
    """Names of the physical axes: the last map's output expressions (``c // 4``, ...)."""
    try:
        names = [str(e) for e in c.maps[-1].final_indices]
    except (AttributeError, IndexError):
        names = []
    if len(names) != len(c.physical_shape):
        names = [f"p{k}" for k in range(len(c.physical_shape))]
    return names


def separator_marks(c: LayoutCells):
    """Where each axis separator falls in the 2-d physical picture: ``(sep, "rows" |
    "cols" | "between", step)`` -- a line every ``step`` rows / columns, or ``"between"``
    when the separator is the split between the picture's rows and its columns."""
    shape = c.physical_shape
    k = _row_split(shape, c.grouped_shape, c.axis_separators)
    out = []
    for sep in c.axis_separators:
        if sep == k:
            out.append((sep, "between", None))
        elif sep > k:
            out.append((sep, "cols", int(np.prod(shape[sep:]))))
        elif sep > 0:
            out.append((sep, "rows", int(np.prod(shape[sep:k]))))
    return out


def _pad_text(v):
    if v is None:
        return "None (never read)"
    return repr(v) if not hasattr(v, "dtype") else str(v)


def layout_text(s, name, max_rows=24) -> str:
    c = layout_cells(s, name)
    width = max(2, len(str(int(np.prod(c.logical_shape)) - 1)))
    lines = [f"{c.name}: logical {list(c.logical_shape)} -> physical {list(c.physical_shape)}"
             + (f" grouped by axis separators {c.axis_separators} into "
                f"{list(c.grouped_shape)}" if c.grouped_shape else ""),
             f"mapping: {c.mapping_text()}",
             f"padding: {c.n_pad} of {c.physical.size} physical elements; pad_value = "
             f"{_pad_text(c.pad_value)}"]

    def grid(a, title):
        lines.append(title)
        rows = a.tolist()
        for k, row in enumerate(rows):
            if k == max_rows:
                lines.append(f"  ... ({len(rows) - max_rows} more rows)")
                break
            lines.append("  " + " ".join("." * width if v == PAD else str(v).rjust(width)
                                         for v in row))
    logical = np.arange(c.physical.size - c.n_pad).reshape(c.logical_shape) \
        if c.logical_shape else np.zeros(())
    grid(_as_2d(logical), "logical (cells: row-major logical index):")
    phys2 = _as_2d(c.physical, c.grouped_shape)
    note = "" if c.physical.ndim <= 2 and not c.grouped_shape else \
        f" shown as {phys2.shape[0]} x {phys2.shape[1]}"
    grid(phys2, f"physical{note} ('{'.' * width}' = padding):")
    return "\n".join(lines)


SEP_COLOR = "tab:red"


def _shape_with_seps(shape, seps):
    parts = [str(d) for d in shape]
    for sep in sorted(seps, reverse=True):
        parts.insert(sep, "|")
    return "[" + ", ".join(parts).replace(", |,", " |") + "]"


def plot_layout(s, name, path):
    """Logical grid and physical grid side by side; padding hatched; cells labelled; red
    lines / labels where axis separators split the physical axes into groups."""
    plt = require_matplotlib()
    fig = layout_figure(s, name)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def layout_figure(s, name):
    """The matplotlib figure of ``plot_layout``; separator marks carry
    ``gid="axis-separator"``."""
    plt = require_matplotlib()
    c = layout_cells(s, name)
    n = c.physical.size - c.n_pad
    logical = _as_2d(np.arange(n).reshape(c.logical_shape) if c.logical_shape
                     else np.zeros(()))
    phys = _as_2d(c.physical, c.grouped_shape, c.axis_separators)
    cmap = plt.get_cmap("viridis")
    fig, axes = plt.subplots(1, 2, figsize=(
        min(18, 2 + 0.45 * (logical.shape[1] + phys.shape[1])),
        min(14, 1.8 + 0.45 * max(logical.shape[0], phys.shape[0]))))
    label = logical.size <= 600 and phys.size <= 600
    for ax, a, title in ((axes[0], logical, f"{c.name} logical {list(c.logical_shape)}"),
                         (axes[1], phys, "physical " +
                          _shape_with_seps(c.physical_shape, c.axis_separators) +
                          (f" grouped {list(c.grouped_shape)}" if c.grouped_shape else ""))):
        rows, cols = a.shape
        for r in range(rows):
            for q in range(cols):
                v = int(a[r, q])
                if v == PAD:
                    ax.add_patch(plt.Rectangle((q, rows - 1 - r), 1, 1, facecolor="0.88",
                                               edgecolor="0.4", hatch="//", linewidth=0.5))
                    if label:
                        ax.text(q + 0.5, rows - 0.5 - r, "pad", ha="center", va="center",
                                fontsize=6, color="0.3")
                else:
                    ax.add_patch(plt.Rectangle((q, rows - 1 - r), 1, 1,
                                               facecolor=cmap(0.15 + 0.7 * v / max(1, n - 1)),
                                               edgecolor="white", linewidth=0.5))
                    if label:
                        ax.text(q + 0.5, rows - 0.5 - r, str(v), ha="center", va="center",
                                fontsize=7, color="white")
        ax.set_xlim(0, cols)
        ax.set_ylim(0, rows)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(title, fontsize=9)
    if c.axis_separators:
        _mark_separators(axes[1], c, phys.shape)
    fig.suptitle(f"{c.mapping_text()}   pad_value={_pad_text(c.pad_value)}   "
                 f"({c.n_pad} padding cells)", fontsize=9)
    fig.tight_layout()
    return fig


def _mark_separators(ax, c, shape2):
    """Red lines where a separator splits the picture's rows or columns into groups; red axis
    labels naming the physical axes of each side when it splits rows from columns."""
    rows, cols = shape2
    names = physical_axis_names(c)
    k = _row_split(c.physical_shape, c.grouped_shape, c.axis_separators)
    bounds = [0] + list(c.axis_separators) + [len(names)]
    groups = [(a, b) for a, b in zip(bounds, bounds[1:])]

    def grp(lo, hi):                      # the groups lying within physical dims [lo, hi)
        return "; ".join(f"group {g}: [{', '.join(names[max(a, lo):min(b, hi)])}]"
                         for g, (a, b) in enumerate(groups) if max(a, lo) < min(b, hi))
    shape, seps = c.physical_shape, set(c.axis_separators)
    for j in range(1, len(shape)):        # thin lines between the blocks of outer axes
        if j in seps or j == k:
            continue
        step = int(np.prod(shape[j:])) if j > k else int(np.prod(shape[j:k]))
        n = cols if j > k else rows
        if 1 < step < n:
            for t in range(step, n, step):
                if j > k:
                    ax.axvline(t, color="0.1", linewidth=1.0)
                else:
                    ax.axhline(rows - t, color="0.1", linewidth=1.0)
    for sep, where, step in separator_marks(c):
        if where == "between":
            ax.set_ylabel(f"rows: {grp(0, k)}", color=SEP_COLOR, fontsize=8, gid="axis-separator")
            ax.set_xlabel(f"columns: {grp(k, len(names))}\n(axis separator {sep}: "
                          "rows | columns are separate buffer axes)", color=SEP_COLOR,
                          fontsize=8, gid="axis-separator")
            for x0, x1, y0, y1 in ((0, 0, 0, rows), (0, cols, rows, rows)):
                ax.plot([x0, x1], [y0, y1], color=SEP_COLOR, linewidth=3, clip_on=False,
                        gid="axis-separator")
        elif where == "cols":
            for x in range(step, cols, step):
                ax.axvline(x, color=SEP_COLOR, linewidth=2.5, gid="axis-separator")
            ax.set_xlabel(f"red: axis separator {sep} (every {step} columns)",
                          color=SEP_COLOR, fontsize=8)
        else:
            for y in range(step, rows, step):
                ax.axhline(rows - y, color=SEP_COLOR, linewidth=2.5, gid="axis-separator")
            ax.set_ylabel(f"red: axis separator {sep} (every {step} rows)",
                          color=SEP_COLOR, fontsize=8)


__all__ = ["layout_cells", "layout_text", "plot_layout", "layout_figure", "separator_marks",
           "physical_axis_names", "LayoutCells", "transformed_stages"]
