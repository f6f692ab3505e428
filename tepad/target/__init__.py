"""``tepad.target.Target``: what a kernel is compiled for (TVM's ``tvm.target.Target``).

A target is a kind plus options, written as TVM writes them::

    Target("llvm")                                  # the host CPU
    Target("llvm -mcpu=znver4 -mattr=+avx2,+fma")   # tune for a CPU, with these features
    with Target("llvm -mcpu=skylake"): ...          # Target.current() inside the block

Only the ``llvm`` kind (the CPU; ``c`` and ``cpu`` are accepted as names for it) builds
today. ``-mcpu`` picks the CPU LLVM tunes and schedules for; the instruction-set features are
the host's, changed by ``-mattr``, and a feature the host lacks is refused: the kernel runs in
this process, so code for another machine would crash it.
"""
from __future__ import annotations

import shlex
import threading

import llvmlite.binding as llvm

from ..errors import TepadError
from . import codegen  # TVM's tvm.target.codegen

_CPU_KINDS = {"llvm": "llvm", "c": "llvm", "cpu": "llvm"}
_KNOWN_KINDS = set(_CPU_KINDS) | {"cuda", "nvptx", "rocm", "opencl", "vulkan", "metal"}
_current = threading.local()


_DEFAULT_KEYS = {"llvm": ["cpu"], "cuda": ["cuda", "gpu"], "nvptx": ["cuda", "gpu"],
                 "rocm": ["rocm", "gpu"], "opencl": ["opencl", "gpu"], "vulkan": ["vulkan", "gpu"],
                 "metal": ["metal", "gpu"]}


class TargetKind:
    """The kind of a target (``.name``: ``"llvm"``, ...)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"TargetKind({self.name})"


def host_cpu_name() -> str:
    return llvm.get_host_cpu_name()


def host_features() -> dict:
    """``{feature: enabled}`` for every feature LLVM knows on this host."""
    return dict(llvm.get_host_cpu_features())


class Target:
    """A parsed target string. ``.kind.name``, ``.attrs`` (``mcpu``, ``mattr`` as a list,
    ``keys``, and any other ``-key=value`` option), ``.host`` (a Target or None),
    ``.mcpu`` and ``.features`` (the LLVM feature string a CPU kernel is built with)."""

    def __init__(self, target, host=None):
        if isinstance(target, Target):
            target, host = str(target), host if host is not None else target.host
        if isinstance(target, dict):
            target = " ".join([target.get("kind", "")] +
                              [f"-{k}={v}" for k, v in target.items() if k != "kind"])
        if not isinstance(target, str) or not target.strip():
            raise TepadError(f"a target is a string such as 'llvm' or "
                             f"'llvm -mcpu=skylake -mattr=+avx2'; got {target!r}")
        words = shlex.split(target)
        kind = words[0]
        if kind not in _KNOWN_KINDS:
            raise TepadError(f"unknown target kind {kind!r} in {target!r}; tepad knows "
                             f"{', '.join(sorted(_KNOWN_KINDS))} and builds for 'llvm'")
        self.kind = TargetKind(_CPU_KINDS.get(kind, kind))
        self.attrs: dict = {}
        for w in words[1:]:
            if not w.startswith("-"):
                raise TepadError(f"target {target!r}: option {w!r} must look like -key=value")
            key, eq, value = w.lstrip("-").partition("=")
            if key == "mattr":
                self.attrs[key] = [f for f in value.split(",") if f]
            elif key == "keys":
                self.attrs[key] = value.split(",")
            else:
                self.attrs[key] = value if eq else True
        self.attrs.setdefault("keys", _DEFAULT_KEYS.get(self.kind.name, [self.kind.name]))
        self.host = Target(host) if host is not None and not isinstance(host, Target) else host
        self._text = target.strip()

    # --- what the CPU code generator reads --------------------------------------------------
    @property
    def keys(self) -> list:
        """The target's key list (TVM's ``Target.keys``): ``["cpu"]`` for llvm,
        ``["cuda", "gpu"]`` for cuda."""
        return list(self.attrs["keys"])

    @property
    def mcpu(self) -> str:
        return self.attrs.get("mcpu") or host_cpu_name()

    @property
    def features(self) -> str:
        """The host's features with ``-mattr`` applied, as LLVM's ``+a,-b`` string; a ``+f``
        the host lacks is a TepadError."""
        have = host_features()
        feats = dict(have)
        for f in self.attrs.get("mattr", []):
            on, name = f[0] == "+", f.lstrip("+-")
            if on and not have.get(name, False):
                raise TepadError(
                    f"target {self._text!r} asks for +{name}, which this CPU "
                    f"({host_cpu_name()}) does not have; a kernel using it would crash here "
                    f"(drop +{name} from -mattr)")
            feats[name] = on
        return ",".join(("+" if v else "-") + k for k, v in sorted(feats.items()))

    def has_feature(self, name: str) -> bool:
        """True when kernels for this target may use the instruction-set feature ``name``."""
        mattr = {f.lstrip("+-"): f[0] == "+" for f in self.attrs.get("mattr", [])}
        return mattr.get(name, host_features().get(name, False))

    # --- TVM habits ---------------------------------------------------------------------------
    def __enter__(self):
        stack = getattr(_current, "stack", None)
        if stack is None:
            stack = _current.stack = []
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _current.stack.pop()

    @staticmethod
    def current(allow_none=True):
        """The innermost ``with Target(...)`` target of this thread, or None."""
        stack = getattr(_current, "stack", None)
        if stack:
            return stack[-1]
        if not allow_none:
            raise TepadError("no target is set: use `with tepad.target.Target('llvm'):`")
        return None

    def __str__(self):
        return self._text

    def __repr__(self):
        return f"Target({self._text!r})"

    def __eq__(self, other):
        return isinstance(other, Target) and str(self) == str(other) and self.host == other.host

    def __hash__(self):
        return hash(self._text)


def as_target(target) -> Target:
    """``target`` as a Target: a Target, a target string, or None (the ``with`` target, else
    the host CPU)."""
    if target is None:
        return Target.current() or Target("llvm")
    return target if isinstance(target, Target) else Target(target)


__all__ = ["Target", "TargetKind", "as_target", "host_cpu_name", "host_features"]
