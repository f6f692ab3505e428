"""docs/api.md: the API reference, written from tepad's docstrings (called by docs/generate.py).

    python docs/generate.py            rewrites docs/api.md with the snippets
    python docs/generate.py --check    fails when docs/api.md differs from ``render()``

Guarantees: every name in ``__all__`` of each module of ``MODULES`` gets an entry (its
signature without annotations, and its docstring as written), in ``__all__`` order; an object
exported by several modules is described once, at its first export, and the later exports link
there; classes in ``METHODS_OF`` also list their public methods and properties. The text
depends only on the source (no addresses, no timings), so a regeneration changes nothing
unless a docstring, signature or ``__all__`` changed.
"""
from __future__ import annotations

import importlib
import inspect
import re
from dataclasses import replace

from tepad.lower.pipeline import Options, labelled

# the API-level modules, in the order the reference presents them
MODULES = ["tepad", "tepad.target", "tepad.schedule", "tepad.te", "tepad.lower", "tepad.lower.pipeline",
           "tepad.lower.passes", "tepad.layout", "tepad.testing", "tepad.runtime",
           "tepad.arith", "tepad.bound", "tepad.tir", "tepad.autotvm", "tepad.backend",
           "tepad.config"]

# classes whose public methods are listed (the rest: signature and docstring)
# (by where they are defined: an export under another name lists them too)
METHODS_OF = {"tepad.target.Target", "tepad.schedule.stage.Stage", "tepad.schedule.schedule.Schedule",
              "tepad.runtime.module.Module", "tepad.arith.analyzer.Analyzer",
              "tepad.tensor.tensor.Tensor", "tepad.tir.function.PrimFunc"}

# public dunders worth listing (how the object is used: s[B], mod(*arrays))
DUNDERS = ("__call__", "__getitem__")

HEADER = """\
# API reference

Generated from the docstrings by `docs/api_reference.py` (run `python docs/generate.py`;
`python docs/generate.py --check`, run by the test suite, fails when this file is stale).
Every name in the `__all__` of the modules below is listed, in `__all__` order; a name exported
by several modules is described at its first export and linked from the others. Signatures omit
type annotations. For the ideas behind the names see the [tutorial](tutorial.md),
[primitives](primitives.md), [InferBound](inferbound.md), [padding](padding.md) and
[coming from TVM](coming_from_tvm.md); the errors are in the [catalogue](errors.md).
"""


def _doc(obj) -> str:
    """The object's own docstring, cleaned (no inherited or dataclass-generated text)."""
    doc = obj.__dict__.get("__doc__") if isinstance(obj, type) else getattr(obj, "__doc__", None)
    if not doc:
        return ""
    doc = inspect.cleandoc(doc)
    name = getattr(obj, "__name__", "")
    if isinstance(obj, type) and name and doc.startswith(name + "("):
        return ""          # dataclass-generated: the signature again
    return doc


def _when(p) -> str:
    """When pass ``p`` runs, found by asking its predicate about one option at a time."""
    base = Options()
    if p.when(base):
        if not p.when(replace(base, target="a target with structured memory")):
            return f"target `{base.target}` (flat memory; the default)"
        return "always"
    on = [f"`{f}=True`" for f in ("checked", "bounds_check")
          if p.when(replace(base, **{f: True}))]
    return " or ".join(on) or "never by default"


def _strip_addresses(text: str) -> str:
    text = re.sub(r"<function ([\w.<>]+) at 0x[0-9a-f]+>", r"\1", text)
    text = re.sub(r"<bound method ([\w.<>]+) of .*?>", r"\1", text)
    return re.sub(r" at 0x[0-9a-f]+", "", text)


def _signature(obj) -> str:
    """``(a, b=1, *, c=None)`` without annotations; '' when Python cannot tell."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return ""
    params = [p.replace(annotation=p.empty) for p in sig.parameters.values()]
    return _strip_addresses(str(sig.replace(parameters=params,
                                            return_annotation=sig.empty)))


def _anchor(qual: str) -> str:
    return qual.replace(" ", "-")


def _summary(doc: str) -> str:
    return doc.split("\n\n", 1)[0].replace("\n", " ") if doc else ""


class _Writer:
    def __init__(self):
        self.lines: list[str] = []
        self.seen: dict[int, str] = {}          # id(object) -> qualified name of its entry
        self.keep: list = []                    # keeps described objects alive (stable ids)
        self.sections = set(MODULES)

    def out(self, *lines):
        self.lines.extend(lines)

    def entry_head(self, qual: str, title: str):
        self.out(f'<a id="{_anchor(qual)}"></a>', "", f"### {title}", "")

    def body(self, doc: str):
        if doc:
            self.out(doc, "")
        else:
            self.out("*(no docstring)*", "")

    def module(self, name: str):
        mod = importlib.import_module(name)
        self.out(f'<a id="{_anchor(name)}"></a>', "", f"## `{name}`", "")
        doc = _doc(mod)
        if doc:
            self.out(doc, "")
        if name == "tepad.lower":
            self.out("The module is callable: `tepad.lower(s, args, ...)` is "
                     "[`tepad.lower.lower`](#tepad.lower.lower).", "")
        names = list(getattr(mod, "__all__", []))
        self.out("Names: " + ", ".join(f"[`{n}`](#{_anchor(name + '.' + n)})" for n in names),
                 "")
        for n in names:
            self.name(name, n, getattr(mod, n))

    def name(self, mod_name: str, n: str, obj):
        qual = f"{mod_name}.{n}"
        if inspect.ismodule(obj):
            if obj.__name__ in self.sections and obj.__name__ == qual:
                # the module has its own section (and anchor): a pointer, not an entry
                self.out(f"- module [`{qual}`](#{_anchor(qual)}): {_summary(_doc(obj))}", "")
                return
            self.entry_head(qual, f"module `{qual}`")
            if obj.__name__ in self.sections:
                self.out(f"{_summary(_doc(obj))} See [`{obj.__name__}`]"
                         f"(#{_anchor(obj.__name__)}).", "")
            else:
                self.out(_summary(_doc(obj)) or "*(no docstring)*", "")
            return
        if not isinstance(obj, (int, float, str, bool)) and id(obj) in self.seen:
            first = self.seen[id(obj)]
            self.entry_head(qual, f"`{qual}`")
            self.out(f"The same object as [`{first}`](#{_anchor(first)}).", "")
            return
        if not isinstance(obj, (int, float, str, bool)):
            self.seen[id(obj)] = qual
            self.keep.append(obj)
        if inspect.isclass(obj):
            self.klass(qual, obj)
        elif callable(obj):
            self.entry_head(qual, f"`{qual}{_signature(obj)}`")
            self.body(_doc(obj))
        else:
            self.constant(qual, obj)

    def klass(self, qual: str, cls):
        kind = "exception" if issubclass(cls, BaseException) else "class"
        sig = _signature(cls) if "__init__" in vars(cls) or "__new__" in vars(cls) or \
            hasattr(cls, "__dataclass_fields__") else ""
        self.entry_head(qual, f"{kind} `{qual}{sig}`")
        bases = [b for b in cls.__bases__ if b is not object]
        if bases:
            self.out("Bases: " + ", ".join(f"`{b.__module__}.{b.__qualname__}`"
                                           for b in bases), "")
        doc = _doc(cls)
        fields = [f for f in getattr(cls, "_fields", ()) if f != "dtype"]
        if not doc and fields:
            symbol = getattr(cls, "symbol", None)
            doc = "IR node" + (f" `a {symbol} b`" if symbol else "") + "; fields " + \
                ", ".join(f"`{f}`" for f in fields) + "."
        self.body(doc)
        if f"{cls.__module__}.{cls.__qualname__}" in METHODS_OF:
            self.methods(qual, cls)

    def methods(self, qual: str, cls):
        done = set()
        for klass in cls.__mro__:
            if klass is object or not klass.__module__.startswith("tepad"):
                continue
            for n, member in vars(klass).items():
                if n in done or (n.startswith("_") and n not in DUNDERS):
                    continue
                done.add(n)
                if isinstance(member, property):
                    self.out(f'<a id="{_anchor(qual + "." + n)}"></a>', "",
                             f"#### property `{qual}.{n}`", "")
                    self.body(_doc(member.fget) if member.fget else "")
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    fn = member.__func__
                    label = "staticmethod " if isinstance(member, staticmethod) else \
                        "classmethod "
                elif inspect.isfunction(member):
                    fn, label = member, ""
                else:
                    continue
                sig = _signature(fn)
                if not isinstance(member, staticmethod):
                    sig = re.sub(r"^\((self|cls)(, )?", "(", sig)
                self.out(f'<a id="{_anchor(qual + "." + n)}"></a>', "",
                         f"#### {label}`{qual}.{n}{sig}`", "")
                self.body(_doc(fn))

    def constant(self, qual: str, obj):
        self.entry_head(qual, f"`{qual}`")
        if isinstance(obj, tuple) and obj and all(type(p).__name__ == "Pass" for p in obj):
            self.out(f"A tuple of {len(obj)} `Pass` objects, in the order they run:", "",
                     "| # | pass | phase | selected when | why |", "|---|---|---|---|---|")
            for k, (label, p) in enumerate(labelled(obj), 1):
                when = _when(p)
                if p.skip_if_unchanged:
                    when += "; skipped when the step before changed nothing"
                self.out(f"| {k} | `{label}` | {p.phase} | {when} | {p.why} |")
            self.out("")
            return
        text = _strip_addresses(repr(obj))
        if len(text) > 120:
            text = text[:117] + "..."
        self.out(f"A `{type(obj).__name__}`: `{text}`.", "")


def render() -> str:
    """The whole of docs/api.md (deterministic: the same source gives the same text)."""
    w = _Writer()
    w.out(HEADER)
    w.out("Modules: " + ", ".join(f"[`{m}`](#{_anchor(m)})" for m in MODULES), "")
    for m in MODULES:
        w.module(m)
    text = "\n".join(w.lines)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.rstrip("\n") + "\n"


if __name__ == "__main__":
    print(render(), end="")
