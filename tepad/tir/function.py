"""PrimFunc: a lowered function over buffers."""
from __future__ import annotations

from .buffer import Buffer
from .expr import Node, Var


class PrimFunc(Node):
    """``params`` are Vars; ``buffer_map`` maps a handle param to the Buffer it binds.

    ``attrs`` is a plain dict (``global_symbol``, ``layout_transform_map``, ...). A PrimFunc is
    immutable by convention: passes return new functions via ``with_body`` / ``with_attr``.
Its ``repr`` and ``script()`` are the script text (``tir.printer``).
    """

    __slots__ = ("params", "body", "buffer_map", "attrs")
    _fields = ("params", "body", "buffer_map", "attrs")

    def __init__(self, params, body, buffer_map=None, attrs=None):
        buffer_map = dict(buffer_map or {})
        plist = []
        for p in params:
            p = getattr(p, "param_var", p)       # an ir_builder pointer: its handle Var
            if isinstance(p, Buffer):            # TVM's PrimFunc([buffer, ...]): bind it
                buffer_map[p.data] = p
                p = p.data
            plist.append(p)
        object.__setattr__(self, "params", tuple(plist))
        object.__setattr__(self, "body", body)
        object.__setattr__(self, "buffer_map", buffer_map)
        object.__setattr__(self, "attrs", dict(attrs or {}))

    @property
    def name(self):
        """The ``global_symbol`` attribute (the kernel name), ``main`` when unset."""
        return self.attrs.get("global_symbol", "main")

    def show(self) -> None:
        """Print the function's TVMScript-like text (TVM 0.10's ``PrimFunc.show``)."""
        print(self.script())

    def with_body(self, body, buffer_map=None) -> "PrimFunc":
        """A new PrimFunc with ``body`` (and ``buffer_map`` when given); the rest is shared."""
        return PrimFunc(self.params, body,
                        self.buffer_map if buffer_map is None else buffer_map, self.attrs)

    def with_attr(self, key, value=None) -> "PrimFunc":
        """A new PrimFunc with attribute ``key`` set to ``value`` (removed when None); ``key``
        may be a dict of attributes to set at once (TVM's ``with_attr(attr_map)``)."""
        attrs = dict(self.attrs)
        items = key.items() if isinstance(key, dict) else [(key, value)]
        for k, v in items:
            if v is None:
                attrs.pop(k, None)
            else:
                attrs[k] = v
        return PrimFunc(self.params, self.body, self.buffer_map, attrs)

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other

    __repr__ = Node.__str__

    def arg_buffers(self):
        """The buffers bound to the parameters, in parameter order."""
        return [self.buffer_map[p] for p in self.params if p in self.buffer_map]


__all__ = ["PrimFunc", "Var"]
