"""TVM's ``tvm.ir.base`` module path: ``save_json`` / ``load_json``, ``Node`` and the
structural comparisons, the same objects ``tvm.ir`` exports (programs import them from
here: ``from tvm.ir.base import save_json``)."""
from ..tir import assert_structural_equal, structural_equal, structural_hash
from .base_names import Node
from .json_io import load_json, save_json

__all__ = ["Node", "load_json", "save_json", "structural_equal", "assert_structural_equal",
           "structural_hash"]
