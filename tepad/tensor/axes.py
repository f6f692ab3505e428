"""``op.axis`` / ``op.reduce_axis``: lists of IterVars whose out-of-range index names the op."""
from __future__ import annotations

from ..errors import TepadIndexError


class AxisList(list):
    """A list of an operation's IterVars. ``axes[k]`` out of range is a ``TepadIndexError``
    (also an ``IndexError``) naming the operation and its axes; everything else is ``list``."""

    __slots__ = ("op_name", "what")

    def __init__(self, items, op_name, what="axis"):
        super().__init__(items)
        self.op_name = op_name
        self.what = what

    def __getitem__(self, k):
        try:
            return super().__getitem__(k)
        except IndexError:
            names = [iv.var.name for iv in self]
            raise TepadIndexError(
                f"{self.op_name}.op.{self.what}[{k}]: {self.op_name} has {len(self)} "
                f"{'reduction axes' if self.what == 'reduce_axis' else 'axes'} {names}; valid "
                f"indices are {-len(self)}..{len(self) - 1}" if self else
                f"{self.op_name}.op.{self.what}[{k}]: {self.op_name} has no "
                f"{'reduction axes' if self.what == 'reduce_axis' else 'axes'}") from None

    def __reduce__(self):
        return (AxisList, (list(self), self.op_name, self.what))
