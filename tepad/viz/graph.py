"""The read graph of a schedule with its attach edges: networkx, DOT text, PNG.

Nodes are stages (operations): placeholders as boxes, compute stages as ellipses labelled with
shape and dtype. Solid edges are dataflow (producer -> consumer, labelled with the tensor);
dashed edges are ``compute_at`` attachments (stage -> the stage it is computed in, labelled
with the loop); inlined stages are dotted.
"""
from __future__ import annotations

import shutil
import subprocess

import networkx as nx

from ..schedule.stage import AttachType
from ..tensor.tensor import PlaceholderOp
from .deps import require_matplotlib


def _shape(t):
    return "(" + ", ".join(str(d) for d in t.shape) + ")"


def schedule_graph(s) -> nx.MultiDiGraph:
    """MultiDiGraph over stage names; edge attr ``kind`` is ``"read"`` or ``"attach"``."""
    g = nx.MultiDiGraph()
    for st in s.stages:
        t = st.op.output(0)
        kind = "placeholder" if isinstance(st.op, PlaceholderOp) else "compute"
        notes = []
        if st.attach_type in (AttachType.Inline, AttachType.InlinedAlready):
            notes.append("inline")
        if getattr(st, "is_rolling", False):
            notes.append("rolling_buffer")
        if getattr(st, "layout_transforms", None):
            notes.append("transform_layout")
        if st.is_output:
            notes.append("output")
        g.add_node(st.name, kind=kind, shape=_shape(t), dtype=t.dtype, notes=notes,
                   op=type(st.op).__name__)
    for st in s.stages:
        if isinstance(st.op, PlaceholderOp):
            continue
        for t in st.op.input_tensors:
            g.add_edge(s[t].name if t.op in {x.op for x in s.stages} else t.op.name, st.name,
                       kind="read", tensor=t.name)
        if st.attach_type == AttachType.Scope:
            g.add_edge(st.name, st.attach_stage.name, kind="attach",
                       ivar=st.attach_ivar.name)
    return g


def _q(x):
    return '"' + str(x).replace("\\", "\\\\").replace('"', '\\"') + '"'


def graph_to_dot(g: nx.MultiDiGraph, name="schedule") -> str:
    lines = [f"digraph {_q(name)} {{", "  rankdir=TB;",
             '  node [fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];']
    for n, d in g.nodes(data=True):
        label = f"{n}\\n{d['shape']} {d['dtype']}"
        if d["notes"]:
            label += "\\n[" + ", ".join(d["notes"]) + "]"
        shape = "box" if d["kind"] == "placeholder" else "ellipse"
        style = ', style="dotted"' if "inline" in d["notes"] else \
            (', style="bold"' if "output" in d["notes"] else "")
        lines.append(f'  {_q(n)} [shape={shape}, label="{label}"{style}];')
    for u, v, d in g.edges(data=True):
        if d["kind"] == "read":
            lines.append(f"  {_q(u)} -> {_q(v)} [label={_q(d['tensor'])}];")
        else:
            lines.append(f"  {_q(u)} -> {_q(v)} [style=dashed, color=blue, fontcolor=blue, "
                         f"constraint=false, label={_q('compute_at ' + d['ivar'])}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# the matplotlib drawing (used when graphviz is missing): a layered layout sized to the graph
# ---------------------------------------------------------------------------------------------
MAX_RANKS = 6          # a column holds at most this many layers; longer pipelines wrap
FONT = 7.5             # node text, points
CHAR_IN = 0.075        # inches per character of node text (generous for DejaVu Sans at FONT)
LINE_IN = 0.15         # inches per line of node text


def _label(n, d):
    lines = [n, d["shape"], d["dtype"]]
    if d["notes"]:
        lines.append("[" + ", ".join(d["notes"]) + "]")
    return "\n".join(lines)


def graph_layers(g: nx.MultiDiGraph) -> list:
    """Nodes by layer (topological generations of the read edges), each layer ordered to
    cross few edges (barycenter of the predecessors' positions, a few sweeps)."""
    read = nx.DiGraph([(u, v) for u, v, d in g.edges(data=True) if d["kind"] == "read"])
    read.add_nodes_from(g.nodes)
    order = {n: k for k, n in enumerate(g.nodes)}
    layers = [sorted(layer, key=order.get) for layer in nx.topological_generations(read)]
    for _ in range(2):
        for k in range(1, len(layers)):
            pos = {n: i for i, n in enumerate(layers[k - 1])}
            layers[k].sort(key=lambda n: (sum(pos[p] for p in read.pred[n] if p in pos) /
                                          max(1, sum(p in pos for p in read.pred[n]))
                                          if any(p in pos for p in read.pred[n]) else 1e9,
                                          order[n]))
        for k in range(len(layers) - 2, -1, -1):
            pos = {n: i for i, n in enumerate(layers[k + 1])}
            layers[k].sort(key=lambda n: (sum(pos[s] for s in read.succ[n] if s in pos) /
                                          max(1, sum(s in pos for s in read.succ[n]))
                                          if any(s in pos for s in read.succ[n]) else 1e9,
                                          order[n]))
    return layers


def graph_positions(g: nx.MultiDiGraph, max_ranks=MAX_RANKS):
    """``(pos, (width, height))``: node centres in inches from the bottom left, and the size
    of the drawing. Layers run top to bottom; more than ``max_ranks`` layers wrap into bands
    placed side by side, so a long linear pipeline stays about as wide as it is tall."""
    layers = graph_layers(g)
    labels = {n: _label(n, d) for n, d in g.nodes(data=True)}
    box_w = max(max(len(x) for x in lab.split("\n")) for lab in labels.values()) * CHAR_IN \
        + 0.35
    box_h = max(lab.count("\n") + 1 for lab in labels.values()) * LINE_IN + 0.25
    col_w = box_w + 0.45                     # room between boxes in a layer
    row_h = box_h + 0.55                     # room for arrows and edge labels between layers
    nbands = -(-len(layers) // max_ranks)
    per = -(-len(layers) // nbands)          # balanced bands: 14 layers wrap as 5, 5, 4
    bands = [layers[i:i + per] for i in range(0, len(layers), per)]
    band_cols = [max(len(l) for l in band) for band in bands]
    gap = 0.6 if len(bands) > 1 else 0.0     # between bands
    ranks = max(len(b) for b in bands)
    height = (ranks - 1) * row_h + box_h
    width = sum(c * col_w for c in band_cols) + gap * (len(bands) - 1)
    pos, x0 = {}, 0.0
    for band, cols in zip(bands, band_cols):
        bw = cols * col_w
        for r, layer in enumerate(band):
            for i, n in enumerate(layer):
                pos[n] = (x0 + bw / 2 + (i - (len(layer) - 1) / 2) * col_w,
                          height - box_h / 2 - r * row_h)
        x0 += bw + gap
    return pos, (width, height), labels


def graph_figure(g: nx.MultiDiGraph, max_ranks=MAX_RANKS):
    """The matplotlib figure of ``g``. Node texts carry ``gid="node:NAME"`` and draw their
    box as the text's own bbox patch, so the text always fits inside its box."""
    plt = require_matplotlib()
    pos, (w, h), labels = graph_positions(g, max_ranks)
    title = "read graph (solid arrows)"
    if any(d["kind"] == "attach" for _, _, d in g.edges(data=True)):
        title += ", compute_at (dashed)"
    margin_x, margin_top, margin_bottom = 0.3, 0.5, 0.15
    fw = max(w + 2 * margin_x, 0.09 * len(title) + 0.4, 2.5)
    fh = h + margin_top + margin_bottom
    fig = plt.figure(figsize=(fw, fh))
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_xlim(-(fw - w) / 2, w + (fw - w) / 2)
    ax.set_ylim(-margin_bottom, h + margin_top)
    ax.axis("off")
    texts = {}
    for n, d in g.nodes(data=True):
        inp = d["kind"] == "placeholder"
        ls = ":" if "inline" in d["notes"] else "-"
        lw = 1.8 if "output" in d["notes"] else 0.9
        texts[n] = ax.text(*pos[n], labels[n], ha="center", va="center", fontsize=FONT,
                           gid=f"node:{n}", zorder=3,
                           bbox=dict(boxstyle="round,pad=0.45" if not inp else "square,pad=0.45",
                                     facecolor="#d9e8f5" if inp else "#fde9c9",
                                     edgecolor="0.3", linestyle=ls, linewidth=lw))
    fig.canvas.draw()                        # bbox patches get their size
    r = fig.canvas.get_renderer()
    inv = ax.transData.inverted()
    boxes = {}                               # node -> (x0, y0, x1, y1) of its box, data coords
    for n, t in texts.items():
        e = t.get_bbox_patch().get_window_extent(r)
        (bx0, by0), (bx1, by1) = inv.transform([(e.x0, e.y0), (e.x1, e.y1)])
        boxes[n] = (bx0, by0, bx1, by1)

    def at(n, fx, fy):
        bx0, by0, bx1, by1 = boxes[n]
        return bx0 + fx * (bx1 - bx0), by0 + fy * (by1 - by0)
    for u, v, d in g.edges(data=True):
        (x0, y0), (x1, y1) = pos[u], pos[v]
        if d["kind"] == "read":
            same_band = y1 < y0              # else the edge wraps to the next band
            ax.annotate("", xy=at(v, 0.5, 1.0) if same_band else at(v, 0.0, 0.5),
                        xytext=at(u, 0.5, 0.0) if same_band else at(u, 1.0, 0.5),
                        arrowprops=dict(arrowstyle="-|>", color="0.15", linewidth=0.9,
                                        shrinkA=0, shrinkB=0), zorder=2)
            if d["tensor"] != u:
                ax.text((x0 + x1) / 2, (y0 + y1) / 2, d["tensor"], fontsize=FONT - 1,
                        ha="center", va="center", zorder=4,
                        bbox=dict(boxstyle="square,pad=0.1", facecolor="white",
                                  edgecolor="none"))
        else:
            ax.annotate("", xy=at(v, 1.0, 0.5), xytext=at(u, 1.0, 0.5),
                        arrowprops=dict(arrowstyle="-|>", color="tab:blue", linestyle="--",
                                        linewidth=0.9, shrinkA=1, shrinkB=1,
                                        connectionstyle="arc3,rad=-0.5"), zorder=2)
            ax.text(max(boxes[u][2], boxes[v][2]) + 0.1 + 0.25 * abs(y0 - y1), (y0 + y1) / 2,
                    f"compute_at\n{d['ivar']}", color="tab:blue", fontsize=FONT - 0.5,
                    ha="left", va="center", zorder=4, gid="attach-label")
    fig.text(0.5, 1 - 0.12 / fh, title, ha="center", va="top", fontsize=8, color="0.25")
    return fig


def render_graph_png(g: nx.MultiDiGraph, path, prefer_dot=True) -> str:
    """Write a PNG; graphviz ``dot`` when on PATH, else matplotlib. Returns the renderer."""
    dot = shutil.which("dot") if prefer_dot else None
    if dot:
        try:
            subprocess.run([dot, "-Tpng", "-o", str(path)], input=graph_to_dot(g), text=True,
                           check=True, capture_output=True)
            return "graphviz"
        except (OSError, subprocess.CalledProcessError):
            pass                             # a broken graphviz: draw with matplotlib
    plt = require_matplotlib()
    fig = graph_figure(g)
    fig.savefig(path, dpi=110, bbox_inches="tight", pad_inches=0.15)
    plt.close(fig)
    return "matplotlib"


__all__ = ["schedule_graph", "graph_to_dot", "render_graph_png", "graph_figure", "graph_layers",
           "graph_positions"]
