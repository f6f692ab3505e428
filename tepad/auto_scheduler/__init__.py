"""Auto-scheduling (TVM's ``tvm.auto_scheduler``): a search over rule-made sketches of a
computation, guided by a cost model, measured on the target, logged in TVM's record shape.

    @auto_scheduler.register_workload
    def matmul_add(N, L, M, dtype):
        ...; return [A, B, C, out]
    task = auto_scheduler.SearchTask(func=matmul_add, args=(N, L, M, "float32"),
                                     target="llvm")
    task.tune(auto_scheduler.TuningOptions(num_measure_trials=16,
              measure_callbacks=[auto_scheduler.RecordToFile("matmul.json")]))
    sch, args = task.apply_best("matmul.json")

``default_schedule(outs, target)`` gives the sketch with analytical tile sizes, no search.
See docs/auto_scheduler.md.
"""
from ..autotvm.result import MeasureErrorNo
from .compute_dag import ComputeDAG
from . import _ffi_api, loop_state
from .cost_model import CostModel, RandomModel, XGBModel
from .custom_sketch import PreloadCustomSketchRule
from .default_schedule import default_schedule
from .dispatcher import ApplyHistoryBest
from .loop_state import State
from .measure import (LocalBuilder, LocalRPCMeasureContext, LocalRunner, MeasureInput,
                      MeasureResult, ProgramMeasurer)
from .measure_record import (RecordReader, RecordToFile, load_best, load_best_record,
                             load_records, save_records)
from .search_policy import EmptyPolicy, PreloadMeasuredStates, SearchCallback, SketchPolicy
from .search_task import (HardwareParams, SearchTask, TuneSummary, TuningOptions,
                          auto_schedule, create_task, tune_workload)
from .sketch import Sketch
from .task_input import (get_task_input_buffer, prepare_input_map,
                         register_task_input_buffer, register_task_input_check_func)
from .workload_registry import make_workload_key, register_workload

__all__ = ["ComputeDAG", "CostModel", "RandomModel", "XGBModel", "default_schedule",
           "ApplyHistoryBest", "State", "LocalBuilder", "LocalRPCMeasureContext",
           "LocalRunner", "MeasureInput", "MeasureResult", "ProgramMeasurer", "RecordReader",
           "RecordToFile", "load_best_record", "load_records", "save_records", "EmptyPolicy",
           "PreloadMeasuredStates", "SearchCallback", "SketchPolicy", "HardwareParams",
           "SearchTask", "TuningOptions", "auto_schedule", "Sketch", "make_workload_key",
           "register_workload", "MeasureErrorNo", "create_task", "load_best",
           "TuneSummary", "tune_workload", "PreloadCustomSketchRule", "loop_state",
           "register_task_input_buffer", "get_task_input_buffer",
           "register_task_input_check_func", "prepare_input_map"]
