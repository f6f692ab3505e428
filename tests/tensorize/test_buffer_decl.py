"""tir.decl_buffer with TVM's keywords, and what a bindable buffer offers an intrinsic body:
access_ptr, vload, vstore."""
import pytest

import tepad
from tepad import te, tir
from tepad.tir.expr import Call, IntImm, Var


def test_decl_buffer_accepts_tvm_keywords():
    b = tir.decl_buffer((16, 8), "float32", "W", scope="local", data_alignment=64,
                        offset_factor=16, buffer_type="", axis_separators=None)
    assert b.offset_factor == 16 and b.data_alignment == 64 and b.scope == "local"
    # offset_factor without elem_offset: a symbolic offset, bound later to a region
    assert isinstance(b.elem_offset, Var) and b.elem_offset.name == "W_elem_offset"
    plain = tir.decl_buffer((16,), name="P")
    assert plain.dtype == "float32" and isinstance(plain.elem_offset, IntImm) and \
        plain.elem_offset.value == 0 and plain.scope == "global"


def test_decl_buffer_symbolic_strides_and_explicit_offset():
    ld = te.var("ld")
    b = tir.decl_buffer((4, 4), "int8", "B", strides=[ld, 1], elem_offset=7, offset_factor=1)
    assert b.strides[0] is ld and b.elem_offset.value == 7


def test_decl_buffer_refuses_unknown_buffer_type():
    with pytest.raises(tepad.TepadError, match="buffer_type"):
        tir.decl_buffer((4,), buffer_type="weird")


def test_access_ptr_is_tvm_access_ptr():
    b = tir.decl_buffer((16, 8), "float32", "W", offset_factor=1)
    p = b.access_ptr("rw", offset=3)
    assert isinstance(p, Call) and p.op == "tir.tvm_access_ptr"
    ann, data, off, ext, mask = p.args
    assert ann.op == "tir.type_annotation" and ann.dtype == "float32"
    assert data is b.data
    assert str(off) == "W_elem_offset + 3"
    assert str(ext) == "125"            # 16 * 8 elements less the offset
    assert mask.value == 3
    assert b.access_ptr("r").args[4].value == 1 and b.access_ptr("w").args[4].value == 2


def test_access_ptr_extent_of_strided_buffer():
    ld = te.var("ld")
    b = tir.decl_buffer((4, 8), "float32", "S", strides=[ld, 1], offset_factor=1)
    assert str(b.access_ptr("r").args[3]) == "ld * 4"


def test_access_ptr_refusals():
    b = tir.decl_buffer((4,), name="B")
    with pytest.raises(tepad.TepadError, match="access mask"):
        b.access_ptr("x")
    with pytest.raises(tepad.TepadError, match="content_lanes"):
        b.access_ptr("r", content_lanes=4)


def test_vload_vstore():
    b = tir.decl_buffer((4, 4), name="B")
    i = te.var("i")
    load = b.vload([i, 1])
    assert load.buffer is b and str(load.indices[1]) == "1"
    store = b.vstore([i, 0], load + 1.0)
    assert store.buffer is b and store.value.dtype == "float32"
    vec = b.vload([i, 0], "float32x4")         # four consecutive elements of the row
    assert vec.dtype == "float32x4" and isinstance(vec.indices[1], tir.Ramp)
    assert vec.indices[1].lanes == 4 and str(vec.indices[1].base) == "0"
    with pytest.raises(tepad.TepadError, match="vload of dtype int32x4"):
        b.vload([i, 0], "int32x4")


def test_call_packed_and_ir_builder():
    b = tir.decl_buffer((4,), name="B")
    c = tir.call_packed("f", b.data, 3)
    assert c.op == "tir.tvm_call_packed" and c.args[0].value == "f" and len(c.args) == 3
    # a Buffer argument reaches the registered function as an array over its memory
    whole = tir.call_packed("f", b)
    assert whole.args[1].op == "tir.tepad_array" and whole.args[1].args[0] is b.data
    ib = tir.ir_builder.create()
    ib.emit(c)
    ib.emit(tir.call_extern("int32", "g"))
    s = ib.get()
    assert len(s) == 2 and isinstance(s[0], tir.Evaluate)
