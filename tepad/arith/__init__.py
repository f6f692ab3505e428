"""Integer arithmetic analysis (TVM's ``tvm.arith``): simplifier, constant bounds, IntSets.

```python
from tepad import tir
from tepad.arith import Analyzer, eval_set
i, j, io, ii = (tir.Var(n) for n in ("i", "j", "io", "ii"))
ana = Analyzer()
ana.bind(i, tir.Range(0, 16))
ana.simplify((i * 8 + j) // 8)          # canonical/rewrite simplification
ana.const_int_bound(i * 4 + 3)          # ConstIntBound(min_value=3, max_value=63)
ana.can_prove(i < 16)                   # True
eval_set(io * 4 + ii, {ii: tir.Range(0, 4)})    # IntSet[io*4, io*4 + 3]
```
"""
from .const_bound import ConstIntBound, POS_INF, NEG_INF
from .int_set import IntSet, eval_set, union, intersect
from .analyzer import Analyzer
from .detect import (IntervalSet, intset_interval, intset_single_point, detect_linear_equation,
                     ModularSet, modular_set)


def simplify(node, analyzer=None):
    """Simplify an expression, a Stmt or a PrimFunc (statements use the Simplify pass)."""
    ana = analyzer if analyzer is not None else Analyzer()
    return ana.simplify(node)


__all__ = ["Analyzer", "IntSet", "ConstIntBound", "eval_set", "union", "intersect",
           "simplify", "POS_INF", "NEG_INF", "IntervalSet", "intset_interval",
           "intset_single_point", "detect_linear_equation", "ModularSet", "modular_set"]
