"""Named input arrays for measurement (TVM's ``auto_scheduler.search_task`` task-input
buffers).

A measured state is fed random inputs, which is wrong for inputs whose values steer the
computation (a sparse matrix's ``indices`` / ``indptr``). Such inputs are registered by name
per workload (``SearchTask(task_inputs={name: array})`` or ``register_task_input_buffer``);
``prepare_input_map`` names a task's placeholder arguments (a placeholder's own name unless
it is the default "placeholder", then whatever the registered check functions, such as
``topi.nn.try_get_sparse_input``, say), and the measurer feeds the registered array for a
named argument and random data for the others.

With ``save_to_file`` an array is also written to the working directory as
``{name}.{d0}_{d1}_..._{dtype}.npy`` (numpy text, TVM's format) and found there again by a
later process that did not register it.
"""
from __future__ import annotations

import os

import numpy as np

from ..errors import TepadError
from ..nd import array as nd_array
from ..tensor.tensor import PlaceholderOp, Tensor

#: ``{workload_key: {input_name: NDArray}}``; key "default" holds names of any workload
TASK_INPUT_BUFFER_TABLE: dict = {}
#: ``{function name: function(args) -> {tensor: buffer name}}``
TASK_INPUT_CHECK_FUNC_REGISTRY: dict = {}


def register_task_input_check_func(func_name, f=None, override=False):
    """Register ``f(args) -> {tensor: buffer name}`` (usable as a decorator, with the
    function's own name when ``func_name`` is the function)."""
    if callable(func_name):
        f, func_name = func_name, func_name.__name__
    if not isinstance(func_name, str):
        raise TepadError("register_task_input_check_func: expects a name and a function, or "
                         "a function")

    def register(fn):
        if func_name in TASK_INPUT_CHECK_FUNC_REGISTRY and not override:
            if TASK_INPUT_CHECK_FUNC_REGISTRY[func_name] is not fn:
                raise TepadError(f"register_task_input_check_func: {func_name!r} is already "
                                 "registered; pass override=True to replace it")
        TASK_INPUT_CHECK_FUNC_REGISTRY[func_name] = fn
        return fn

    return register(f) if f is not None else register


def _to_nd(data):
    if hasattr(data, "numpy") and hasattr(data, "shape"):
        return data
    if isinstance(data, np.ndarray):
        return nd_array(data)
    raise TepadError(f"task input must be an NDArray or a numpy array, got "
                     f"{type(data).__name__}")


def _file_name(name, np_data) -> str:
    dims = "".join(f"{d}_" for d in np_data.shape)
    return f"{name}.{dims}{np_data.dtype}.npy"


def _save_buffer_to_file(name, data):
    np_data = data.numpy()
    np_data.tofile(_file_name(name, np_data), " ")


def _try_load_buffer_from_file(name):
    for fname in sorted(os.listdir(".")):
        if not fname.startswith(name + ".") or not fname.endswith(".npy"):
            continue
        meta = fname[len(name) + 1:-len(".npy")].split("_")
        try:
            shape, dtype = [int(d) for d in meta[:-1]], meta[-1]
            return nd_array(np.fromfile(fname, dtype=dtype, sep=" ").reshape(shape))
        except (ValueError, TypeError):
            continue
    return None


def register_task_input_buffer(workload_key, input_name, input_data, overwrite=False,
                               save_to_file=False):
    """Register ``input_data`` as the array named ``input_name`` of ``workload_key``; an
    existing registration wins unless ``overwrite``. Returns the registered array."""
    table = TASK_INPUT_BUFFER_TABLE.setdefault(workload_key, {})
    data = _to_nd(input_data)
    if input_name in table and not overwrite:
        return table[input_name]
    table[input_name] = data
    if save_to_file:
        _save_buffer_to_file(input_name, data)
    return data


def get_task_input_buffer(workload_key, input_name):
    """The array registered as ``input_name`` for ``workload_key`` (or found in a file
    saved by ``save_to_file``, or registered under "default"); TepadError when none."""
    table = TASK_INPUT_BUFFER_TABLE.setdefault(workload_key, {})
    if input_name not in table:
        loaded = _try_load_buffer_from_file(input_name)
        if loaded is not None:
            table[input_name] = loaded
    if input_name in table:
        return table[input_name]
    default = TASK_INPUT_BUFFER_TABLE.get("default", {})
    if input_name in default:
        return default[input_name]
    raise TepadError(f"task input {input_name!r} of workload {workload_key} is not "
                     "registered; give it with SearchTask(..., task_inputs={name: array})")


def has_task_input_buffer(workload_key, input_name) -> bool:
    try:
        get_task_input_buffer(workload_key, input_name)
        return True
    except TepadError:
        return False


def prepare_input_map(args, workload_key=None) -> dict:
    """``{tensor: buffer name}`` for the placeholders among ``args``: a placeholder named
    other than "placeholder" by its name, then what the registered check functions say."""
    out = {}
    for t in args:
        if isinstance(t, Tensor) and isinstance(t.op, PlaceholderOp) and \
                t.op.name != "placeholder":
            out[t] = t.op.name
    for fn in TASK_INPUT_CHECK_FUNC_REGISTRY.values():
        out.update(fn(args))
    return out
