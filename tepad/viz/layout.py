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


def _as_2d(a, grouped=None):
    if grouped is not None and len(grouped) == 2:
        return a.reshape(grouped)
    if a.ndim == 0:
        return a.reshape(1, 1)
    if a.ndim == 1:
        return a.reshape(1, -1)
    cols, k = a.shape[-1], a.ndim - 1     # merge trailing dims until a row has >= 8 cells
    while cols < 8 and k > 1:
        k -= 1
        cols *= a.shape[k]
    return a.reshape(-1, cols)


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


def plot_layout(s, name, path):
    """Logical grid and physical grid side by side; padding hatched; cells labelled."""
    plt = require_matplotlib()
    c = layout_cells(s, name)
    n = c.physical.size - c.n_pad
    logical = _as_2d(np.arange(n).reshape(c.logical_shape) if c.logical_shape
                     else np.zeros(()))
    phys = _as_2d(c.physical, c.grouped_shape)
    cmap = plt.get_cmap("viridis")
    fig, axes = plt.subplots(1, 2, figsize=(
        min(18, 2 + 0.45 * (logical.shape[1] + phys.shape[1])),
        min(14, 1.8 + 0.45 * max(logical.shape[0], phys.shape[0]))))
    label = logical.size <= 600 and phys.size <= 600
    for ax, a, title in ((axes[0], logical, f"{c.name} logical {list(c.logical_shape)}"),
                         (axes[1], phys, f"physical {list(c.physical_shape)}" +
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
    fig.suptitle(f"{c.mapping_text()}   pad_value={_pad_text(c.pad_value)}   "
                 f"({c.n_pad} padding cells)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


__all__ = ["layout_cells", "layout_text", "plot_layout", "LayoutCells", "transformed_stages"]
