"""Random small compute DAGs with random legal schedules, for differential tests.

``draw_program(draw)`` takes a hypothesis ``draw`` (or any callable ``draw(strategy)``) and
returns ``(schedule, args, inputs, outputs, log)`` where ``log`` is a readable list of the
definition and schedule steps (printed when a case fails).
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from tepad import te, tir
from tepad.tir.itervar import IterVarType


def _pick(draw, seq):
    return seq[draw(st.integers(0, len(seq) - 1))]


def _define(draw, log):
    h = draw(st.integers(1, 9))
    w = draw(st.integers(1, 9))
    dtype = _pick(draw, ["float32", "int32"])
    A = te.placeholder((h + 4, w + 4), dtype, name="A")
    log.append(f"A = placeholder(({h + 4}, {w + 4}), {dtype!r})")
    tensors = [A]
    n_stages = draw(st.integers(1, 4))
    for k in range(n_stages):
        name = f"T{k}"
        src = _pick(draw, tensors)
        sh, sw = (int(d) for d in src.shape)
        kind = _pick(draw, ["elementwise", "stencil", "reduce", "binary", "divmod"])
        if kind == "stencil" and sh >= 2 and sw >= 2:
            dy, dx = draw(st.integers(0, 1)), draw(st.integers(0, 1))
            T = te.compute((sh - 1, sw - 1),
                           lambda i, j: src[i, j] + src[i + dy, j + dx] * 2 + src[i + 1, j],
                           name=name)
            log.append(f"{name}[i,j] = {src.name}[i,j] + 2*{src.name}[i+{dy},j+{dx}] "
                       f"+ {src.name}[i+1,j]")
        elif kind == "reduce" and sw >= 3:
            win = draw(st.integers(1, 3))
            r = te.reduce_axis((0, win), name="r")
            red = _pick(draw, ["sum", "max"])
            fn = te.sum if red == "sum" else te.max
            T = te.compute((sh, sw - win + 1), lambda i, j: fn(src[i, j + r], axis=r), name=name)
            log.append(f"{name}[i,j] = {red}_r<{win} {src.name}[i, j+r]")
        elif kind == "binary" and len(tensors) > 1:
            other = _pick(draw, tensors)
            oh, ow = (int(d) for d in other.shape)
            hh, ww = min(sh, oh), min(sw, ow)
            T = te.compute((hh, ww), lambda i, j: src[i, j] - other[i, j], name=name)
            log.append(f"{name}[i,j] = {src.name}[i,j] - {other.name}[i,j]")
        elif kind == "divmod" and src.dtype == "int32":
            T = te.compute((sh, sw), lambda i, j: src[i, j] // 3 + src[i, j] % 4 + (i + j) // 2,
                           name=name)
            log.append(f"{name}[i,j] = {src.name}[i,j]//3 + {src.name}[i,j]%4 + (i+j)//2")
        else:
            c = draw(st.integers(-3, 3))
            T = te.compute((sh, sw), lambda i, j: src[i, j] * 3 + c + i - j, name=name)
            log.append(f"{name}[i,j] = {src.name}[i,j]*3 + {c} + i - j")
        tensors.append(T)
    return A, tensors


def _consumers(s, tensors):
    cons = {t.op: [] for t in tensors}
    for t in tensors[1:]:
        for inp in t.op.input_tensors:
            cons[inp.op].append(t.op)
    return cons


def _schedule_stage(draw, s, T, log):
    st_ = s[T]
    for _ in range(draw(st.integers(0, 3))):
        action = _pick(draw, ["split", "split", "fuse", "reorder"])
        leaves = list(st_.leaf_iter_vars)
        if action == "split":
            iv = _pick(draw, leaves)
            f = draw(st.integers(1, 5))
            if draw(st.booleans()):
                st_.split(iv, factor=f)
                log.append(f"s[{T.name}].split({iv.name}, factor={f})")
            else:
                st_.split(iv, nparts=f)
                log.append(f"s[{T.name}].split({iv.name}, nparts={f})")
        elif action == "fuse" and len(leaves) >= 2:
            k = draw(st.integers(0, len(leaves) - 2))
            st_.fuse(leaves[k], leaves[k + 1])
            log.append(f"s[{T.name}].fuse({leaves[k].name}, {leaves[k + 1].name})")
        elif action == "reorder" and len(leaves) >= 2:
            perm = draw(st.permutations(leaves))
            st_.reorder(*perm)
            log.append(f"s[{T.name}].reorder({', '.join(iv.name for iv in perm)})")
    leaves = st_.leaf_iter_vars
    data = [iv for iv in leaves if iv.iter_type == IterVarType.DataPar]
    if data and draw(st.booleans()):
        iv = leaves[-1]
        if iv.iter_type == IterVarType.DataPar:
            st_.vectorize(iv)
            log.append(f"s[{T.name}].vectorize({iv.name})")
    if data and draw(st.integers(0, 3)) == 0:
        iv = leaves[0]
        if iv.iter_type == IterVarType.DataPar and iv not in st_.iter_var_attrs:
            st_.parallel(iv)
            log.append(f"s[{T.name}].parallel({iv.name})")


def draw_program(draw):
    log = []
    A, tensors = _define(draw, log)
    out = tensors[-1]
    s = te.create_schedule(out.op)
    cons = _consumers(s, tensors)
    # consumers first, so a producer attaches to its consumer's final loops
    for T in reversed(tensors[1:]):
        if T.op not in s.stage_map:      # not reachable from the output
            continue
        _schedule_stage(draw, s, T, log)
        if T is out:
            continue
        users = [c for c in cons[T.op] if c in s.stage_map]
        choice = draw(st.integers(0, 3))
        if choice == 1 and not T.op.reduce_axis:
            s[T].compute_inline()
            log.append(f"s[{T.name}].compute_inline()")
        elif choice >= 2 and len(users) == 1:
            target = s[users[0]]
            if target.attach_type.name != "Inline" and target.leaf_iter_vars:
                iv = _pick(draw, target.leaf_iter_vars)
                s[T].compute_at(target, iv)
                log.append(f"s[{T.name}].compute_at(s[{target.name}], {iv.name})")
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    shape = tuple(int(d) for d in A.shape)
    if A.dtype == "float32":
        a = rng.standard_normal(shape).astype("float32")
    else:
        a = rng.integers(-100, 100, size=shape).astype("int32")
    return s, [A, out], [a], out, log
