"""TVM's ``tvm.contrib.tedd`` (Tensor Expression Debug Display): three pictures of a
schedule as Graphviz DOT text -- the dataflow graph (tensors and the stages that read and
write them), the schedule tree (each stage's loops and where it is attached) and the IterVar
relationship graph (how each stage's leaf loops derive from its root axes by split, fuse,
rebase).

The DOT text is written by tepad itself, so nothing beyond tepad is needed to produce it:
``dot_file_path=`` writes it to a file and ``output_dot_string=True`` returns it.
``show_svg=True`` renders it with the Graphviz ``dot`` program and shows the SVG through
IPython; without those a TepadError says what is missing.
"""
from __future__ import annotations

import html
import shutil
import subprocess

from ..errors import TepadError
from ..schedule.relations import Fuse, Rebase, Singleton, Split, Transform
from ..schedule.stage import AttachType
from ..tensor.tensor import PlaceholderOp
from ..tir.itervar import IterVarType

__all__ = ["viz_dataflow_graph", "viz_schedule_tree", "viz_itervar_relationship_graph",
           "dump_graph"]


def _q(text) -> str:
    """A DOT double-quoted string (a line break becomes DOT's ``\\n``)."""
    text = str(text).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + text.replace("\n", "\\n") + '"'


def _h(text) -> str:
    """Text inside a DOT HTML-like label."""
    return html.escape(str(text), quote=False)


def _expr(e) -> str:
    return str(e.value) if hasattr(e, "value") and not hasattr(e, "name") else str(e)


def _shape(t) -> str:
    return "(" + ", ".join(_expr(d) for d in t.shape) + ")"


def _kind(iv, stage) -> str:
    """TVM's IterVar type name (kDataPar, kThreadIndex, ...), with the schedule's loop
    annotation and thread binding of the leaf loop when it has one."""
    names = {IterVarType.DataPar: "kDataPar", IterVarType.ThreadIndex: "kThreadIndex",
             IterVarType.CommReduce: "kCommReduce", IterVarType.Ordered: "kOrdered",
             IterVarType.Opaque: "kOpaque", IterVarType.Unrolled: "kUnrolled",
             IterVarType.Vectorized: "kVectorized",
             IterVarType.Parallelized: "kParallelized", IterVarType.Tensorized: "kTensorized"}
    attr = stage.iter_var_attrs.get(iv)
    kind = iv.iter_type
    if attr is not None and attr.iter_type is not None:
        kind = attr.iter_type
    text = names.get(IterVarType(kind), str(kind))
    if attr is not None and attr.bind_thread is not None:
        text += f", {attr.bind_thread.thread_tag}"
    return text


def _dom(iv) -> str:
    if iv.dom is None:
        return "range(?)"
    return f"range(min={_expr(iv.dom.min)}, ext={_expr(iv.dom.extent)})"


def _stages(sch):
    return list(sch.stages)


def _attach(stage) -> str:
    t = stage.attach_type
    if t == AttachType.Scope:
        return f"compute_at {stage.attach_stage.name}.{stage.attach_ivar.var.name}"
    return {AttachType.GroupRoot: "root", AttachType.Inline: "inline",
            AttachType.InlinedAlready: "inlined", AttachType.ScanUpdate: "scan update"}.get(
                t, str(t))


# ----------------------------------------------------------------------------- the graphs

def dataflow_dot(sch) -> str:
    """The dataflow graph: a box per stage, an ellipse per tensor, an edge from every
    tensor to the stages that read it and from every stage to the tensors it writes."""
    stages = _stages(sch)
    lines = ["digraph Dataflow_Graph {", '  rankdir="LR";',
             '  label="Dataflow Graph";', "  node [fontname=Courier];"]
    tensor_ids = {}

    def tensor(t):
        key = (t.op, getattr(t, "value_index", 0))
        if key not in tensor_ids:
            tid = f"Tensor_{len(tensor_ids)}"
            tensor_ids[key] = tid
            label = f"{t.op.name}" + (f"[{key[1]}]" if t.op.num_outputs > 1 else "")
            text = "\n".join([label, _shape(t), str(t.dtype)])
            lines.append(f"  {tid} [shape=oval, label={_q(text)}];")
        return tensor_ids[key]

    for k, st in enumerate(stages):
        op = st.op
        sid = f"Stage_{k}"
        text = "\n".join([op.name, type(op).__name__] + ([f"scope: {st.scope}"] if st.scope
                                                          else []))
        lines.append(f"  {sid} [shape=box, label={_q(text)}];")
        if not isinstance(op, PlaceholderOp):
            for t in op.input_tensors:
                lines.append(f"  {tensor(t)} -> {sid};")
        for i in range(op.num_outputs):
            lines.append(f"  {sid} -> {tensor(op.output(i))};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def schedule_tree_dot(sch) -> str:
    """The schedule tree: a root, a table per stage listing its leaf loops (index, name,
    domain, kind) and its attachment; a stage at the root hangs off the root node, a
    stage computed at a loop of another stage hangs off that loop's row, inlined stages
    hang off the root with a dashed edge."""
    stages = _stages(sch)
    index = {st: k for k, st in enumerate(stages)}
    lines = ["digraph Schedule_Tree {", '  rankdir="TB";', '  label="Schedule Tree";',
             "  node [fontname=Courier, shape=plaintext];",
             '  ScheduleTreeRoot [shape=oval, label="ScheduleTreeRoot"];']
    for k, st in enumerate(stages):
        rows = [f'<TR><TD COLSPAN="2" BGCOLOR="lightgrey">{_h(st.name)} '
                f'({_h(type(st.op).__name__)}; {_h(_attach(st))})</TD></TR>']
        if st.scope:
            rows.append(f'<TR><TD COLSPAN="2">scope: {_h(st.scope)}</TD></TR>')
        for i, iv in enumerate(st.leaf_iter_vars):
            rows.append(f'<TR><TD PORT="IV{i}">{i}: {_h(iv.var.name)}</TD>'
                        f'<TD>{_h(_dom(iv))} {_h(_kind(iv, st))}</TD></TR>')
        table = '<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0">' + "".join(rows) + \
            "</TABLE>"
        lines.append(f"  Stage_{k} [label=<{table}>];")
    for k, st in enumerate(stages):
        if st.attach_type == AttachType.Scope and st.attach_stage in index:
            parent = st.attach_stage
            pos = next((i for i, iv in enumerate(parent.leaf_iter_vars)
                        if iv is st.attach_ivar), None)
            port = f":IV{pos}" if pos is not None else ""
            lines.append(f"  Stage_{index[parent]}{port} -> Stage_{k};")
        elif st.attach_type == AttachType.ScanUpdate and st.attach_stage in index:
            lines.append(f"  Stage_{index[st.attach_stage]} -> Stage_{k} [style=dotted];")
        elif st.attach_type in (AttachType.Inline, AttachType.InlinedAlready):
            lines.append(f"  ScheduleTreeRoot -> Stage_{k} [style=dashed];")
        else:
            lines.append(f"  ScheduleTreeRoot -> Stage_{k};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def itervar_relationship_dot(sch) -> str:
    """The IterVar relationship graph: per stage a cluster of its IterVars (root axes on
    top, leaf loops filled) and a node per relation (Split with its factor or nparts, Fuse,
    Rebase, Singleton, Transform), edges from a relation's inputs to it and from it to its
    outputs."""
    lines = ["digraph IterVar_Relationship_Graph {", '  rankdir="TB";',
             '  label="IterVar Relationship Graph";', "  node [fontname=Courier];"]
    for k, st in enumerate(_stages(sch)):
        if isinstance(st.op, PlaceholderOp):
            continue
        lines.append(f"  subgraph cluster_{k} {{")
        lines.append(f"    label={_q(st.name)};")
        ids = {}

        def node(iv, st=st, k=k, ids=ids):
            if iv not in ids:
                ids[iv] = f"IV_{k}_{len(ids)}"
                leaf = iv in st.leaf_iter_vars
                style = ", style=filled, fillcolor=lightblue" if leaf else ""
                lab = f"{iv.var.name}\n{_dom(iv)}\n{_kind(iv, st)}"
                lines.append(f"    {ids[iv]} [shape=box, label={_q(lab)}{style}];")
            return ids[iv]

        for iv in st.all_iter_vars:
            node(iv)
        for r, rel in enumerate(st.relations):
            rid = f"Rel_{k}_{r}"
            if isinstance(rel, Split):
                how = f"factor={_expr(rel.factor)}" if rel.factor is not None else \
                    f"nparts={_expr(rel.nparts)}"
                label = f"Split\n{how}"
            else:
                label = {Fuse: "Fuse", Rebase: "Rebase", Singleton: "Singleton",
                         Transform: "Transform"}.get(type(rel), type(rel).__name__)
            lines.append(f"    {rid} [shape=diamond, label={_q(label)}];")
            for iv in rel.inputs():
                lines.append(f"    {node(iv)} -> {rid};")
            for iv in rel.outputs():
                lines.append(f"    {rid} -> {node(iv)};")
        for iv in st.leaf_iter_vars:
            node(iv)
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- output

def _check_schedule(sch, what):
    if not hasattr(sch, "stages"):
        raise TepadError(f"tedd.{what}: expects a te.Schedule (te.create_schedule(...)), got "
                         f"{type(sch).__name__}")


def _show_svg(dot: str):
    exe = shutil.which("dot")
    if exe is None:
        raise TepadError("tedd: show_svg=True needs the Graphviz 'dot' program on PATH "
                         "(install graphviz); dot_file_path= and output_dot_string=True need "
                         "nothing")
    svg = subprocess.run([exe, "-Tsvg"], input=dot, capture_output=True, text=True,
                         check=True).stdout
    try:
        from IPython.display import SVG, display
    except ImportError:
        raise TepadError("tedd: show_svg=True displays through IPython, which is not "
                         "installed; use dot_file_path= instead") from None
    display(SVG(svg))


def dump_graph(dot: str, show_svg=False, dot_file_path="", output_dot_string=False):
    """Write ``dot`` to ``dot_file_path`` (when given), show it as SVG (when ``show_svg``),
    and return it when ``output_dot_string`` (else None), as TVM's tedd does."""
    if dot_file_path:
        with open(dot_file_path, "w") as f:
            f.write(dot)
    if show_svg:
        _show_svg(dot)
    return dot if output_dot_string else None


def viz_dataflow_graph(sch, show_svg=False, dot_file_path="", output_dot_string=False):
    """The dataflow graph of schedule ``sch`` (see :func:`dataflow_dot`)."""
    _check_schedule(sch, "viz_dataflow_graph")
    return dump_graph(dataflow_dot(sch), show_svg, dot_file_path, output_dot_string)


def viz_schedule_tree(sch, show_svg=False, dot_file_path="", output_dot_string=False):
    """The schedule tree of ``sch`` (see :func:`schedule_tree_dot`)."""
    _check_schedule(sch, "viz_schedule_tree")
    return dump_graph(schedule_tree_dot(sch), show_svg, dot_file_path, output_dot_string)


def viz_itervar_relationship_graph(sch, show_svg=False, dot_file_path="",
                                   output_dot_string=False):
    """The IterVar relationship graph of ``sch`` (see :func:`itervar_relationship_dot`)."""
    _check_schedule(sch, "viz_itervar_relationship_graph")
    return dump_graph(itervar_relationship_dot(sch), show_svg, dot_file_path,
                      output_dot_string)
