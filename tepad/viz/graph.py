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


def render_graph_png(g: nx.MultiDiGraph, path, prefer_dot=True) -> str:
    """Write a PNG; graphviz ``dot`` when on PATH, else matplotlib. Returns the renderer."""
    dot = shutil.which("dot") if prefer_dot else None
    if dot:
        subprocess.run([dot, "-Tpng", "-o", str(path)], input=graph_to_dot(g), text=True,
                       check=True, capture_output=True)
        return "graphviz"
    plt = require_matplotlib()
    read = nx.DiGraph([(u, v) for u, v, d in g.edges(data=True) if d["kind"] == "read"])
    read.add_nodes_from(g.nodes)
    for k, layer in enumerate(nx.topological_generations(read)):
        for n in layer:
            g.nodes[n]["layer"] = k
    pos = nx.multipartite_layout(g, subset_key="layer", align="horizontal", scale=2.0)
    pos = {n: (x, -y) for n, (x, y) in pos.items()}
    pos = {n: (x, -g.nodes[n]["layer"]) for n, (x, _) in pos.items()}
    nlayers = 1 + max(d["layer"] for _, d in g.nodes(data=True))
    fig, ax = plt.subplots(figsize=(7, 1.6 + 1.3 * nlayers))
    colors = ["#d9e8f5" if d["kind"] == "placeholder" else "#fde9c9"
              for _, d in g.nodes(data=True)]
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colors, node_size=2600,
                           node_shape="s", edgecolors="0.3")
    labels = {n: f"{n}\n{d['shape']}\n{d['dtype']}" + (f"\n[{', '.join(d['notes'])}]"
                                                        if d["notes"] else "")
              for n, d in g.nodes(data=True)}
    nx.draw_networkx_labels(g, pos, labels, ax=ax, font_size=7)
    reads = [(u, v) for u, v, d in g.edges(data=True) if d["kind"] == "read"]
    att = [(u, v) for u, v, d in g.edges(data=True) if d["kind"] == "attach"]
    nx.draw_networkx_edges(g, pos, edgelist=reads, ax=ax, node_size=2600, arrows=True)
    nx.draw_networkx_edges(g, pos, edgelist=att, ax=ax, node_size=2600, arrows=True,
                           style="dashed", edge_color="tab:blue",
                           connectionstyle="arc3,rad=0.35")
    nx.draw_networkx_edge_labels(g, pos, {(u, v): d["tensor"] for u, v, d in
                                          g.edges(data=True) if d["kind"] == "read"},
                                 ax=ax, font_size=7)
    for u, v, d in g.edges(data=True):
        if d["kind"] == "attach":
            (x0, y0), (x1, y1) = pos[u], pos[v]
            ax.text((x0 + x1) / 2 + 0.25, (y0 + y1) / 2, f"compute_at\n{d['ivar']}",
                    color="tab:blue", fontsize=7)
    ax.set_title("read graph (solid) and compute_at attachments (dashed)", fontsize=9)
    ax.axis("off")
    ax.margins(0.25)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return "matplotlib"


__all__ = ["schedule_graph", "graph_to_dot", "render_graph_png"]
