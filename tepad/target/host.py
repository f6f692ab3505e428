"""What "the host" means to tepad: this machine's CPU, or the one ``$TEPAD_HOST_TARGET`` names.

Every default CPU target (``Target("llvm")``, ``tepad.build`` without a target, the examples',
topi's and the tuning templates' schedules, the compile cache) asks this module for the host's
LLVM CPU name and features. Unset, they are the machine's own. Set, the variable makes tepad
act as on a smaller CPU of the same family, so that an AVX-512 developer machine builds, tunes
and tests what an AVX2-only or an SSE-only user gets::

    TEPAD_HOST_TARGET=haswell                 # AVX2 + FMA: 8 fp32 lanes, 16 vector registers
    TEPAD_HOST_TARGET=x86-64                  # SSE2 vectors: 4 fp32 lanes, no FMA
    TEPAD_HOST_TARGET="llvm -mcpu=skylake -mattr=-fma"

The value is an LLVM x86 CPU name, or a CPU target string with ``-mcpu`` and/or ``-mattr``. The
named CPU's vector instruction sets (``cpu_model``) and ``-mattr``'s removals are taken off the
machine's features; nothing the machine lacks is ever added (a ``+feature`` it lacks is a
TepadError, as is a CPU name LLVM does not know). The variable is read on every call (a
parse per distinct value is cached), so a test may set it for one block.
"""
from __future__ import annotations

import functools
import os
import re
import shlex

from .. import config
from .._lazy import lazy_module
from ..errors import TepadError
from .cpu_model import vector_features

llvm = lazy_module("llvmlite.binding")

#: the environment variable that forces the host target
ENV = config.HOST_TARGET
_CPU_WORDS = ("llvm", "c", "cpu")
_EXAMPLES = "haswell (AVX2), x86-64 (SSE2), x86-64-v3, skylake-avx512, znver3, ..."

# Turning a feature off turns off the host features that LLVM builds on it (otherwise a
# remaining ``+avx512vl`` would switch ``avx512f`` back on).
_DEPENDENTS = {
    "avx512f": ("avx512", "evex512", "avx10", "amx-avx512", "vaes", "vpclmulqdq", "gfni"),
    "avx2": ("avx512", "evex512", "avx10", "avxvnni", "avxifma", "avxneconvert", "vaes",
             "vpclmulqdq", "gfni", "amx-avx512"),
    "avx": ("avx2", "avx512", "evex512", "avx10", "avxvnni", "avxifma", "avxneconvert",
            "fma", "f16c", "vaes", "vpclmulqdq", "gfni", "amx-avx512", "xop", "fma4"),
}


def turn_off(feats: dict, name: str) -> None:
    """Feature ``name`` off in ``feats`` (in place), and the features LLVM builds on it."""
    for dep in _DEPENDENTS.get(name, ()):
        for k in feats:
            if k.startswith(dep):
                feats[k] = False
    feats[name] = False


def native_cpu_name() -> str:
    """LLVM's name of this machine's CPU (``znver5``), whatever ``$TEPAD_HOST_TARGET`` says."""
    return llvm.get_host_cpu_name()


def native_features() -> dict:
    """``{feature: enabled}`` of this machine's CPU, whatever ``$TEPAD_HOST_TARGET`` says."""
    return dict(llvm.get_host_cpu_features())


def forced_text() -> str:
    """The value of ``$TEPAD_HOST_TARGET`` (stripped; ``""``: unset, the machine is the host)."""
    return config.host_target_text()


def host_cpu_name() -> str:
    """The host's LLVM CPU name: the one ``$TEPAD_HOST_TARGET`` names, else the machine's."""
    forced = _forced(forced_text())
    return forced[0] if forced else native_cpu_name()


def host_features() -> dict:
    """``{feature: enabled}`` for every feature LLVM knows on the host: the machine's, less
    what ``$TEPAD_HOST_TARGET`` takes away."""
    forced = _forced(forced_text())
    return dict(forced[1]) if forced else native_features()


def host_feature_string() -> str:
    """The host's features as LLVM's ``+a,-b`` string (what a kernel for the host is built
    with)."""
    return ",".join(("+" if on else "-") + k for k, on in sorted(host_features().items()))


def describe_host() -> str:
    """``znver5``, or ``haswell (TEPAD_HOST_TARGET='haswell' on znver5)`` for messages."""
    text = forced_text()
    if not text:
        return native_cpu_name()
    return f"{host_cpu_name()} ({ENV}={text!r} on {native_cpu_name()})"


@functools.lru_cache(maxsize=None)
def known_cpus() -> tuple:
    """The CPU names LLVM's x86 back end knows (its ``-mcpu=help`` list), sorted; empty off
    x86 or where LLVM printed no list."""
    llvm.initialize_native_target()
    target = llvm.Target.from_default_triple()
    if not target.triple.startswith(("x86_64", "i386", "i686")):
        return ()
    import tempfile
    # LLVM prints the list on the process's stderr (C level): catch it in a file
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        saved = os.dup(2)
        try:
            os.dup2(tmp.fileno(), 2)
            target.create_target_machine(cpu="help", features="+64bit")
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read().decode(errors="replace")
    return tuple(sorted(re.findall(r"^\s+(\S+)\s+- Select the \S+ processor", text, re.M)))


def _refuse(text: str, why: str):
    raise TepadError(
        f"{ENV}={text!r}: {why}. Valid values: an LLVM x86 CPU name such as {_EXAMPLES} "
        f"(each makes tepad act as on that CPU, within this machine's features), or a CPU "
        f"target string such as 'llvm -mcpu=haswell -mattr=-fma'; unset it for this "
        f"machine's own CPU ({native_cpu_name()})")


@functools.lru_cache(maxsize=None)
def _forced(text: str):
    """``(cpu, {feature: on})`` for the value ``text`` of the variable; None when empty."""
    if not text:
        return None
    try:
        words = shlex.split(text)
    except ValueError as err:
        _refuse(text, f"not a target string ({err})")
    if len(words) == 1 and not words[0].startswith("-") and words[0] not in _CPU_WORDS:
        cpu, mattr = words[0], []
    else:
        if words[0] not in _CPU_WORDS:
            _refuse(text, f"the host target is a CPU, not {words[0]!r}")
        cpu, mattr = None, []
        for w in words[1:]:
            key, eq, value = w.lstrip("-").partition("=")
            if not w.startswith("-") or not eq or key not in ("mcpu", "mattr"):
                _refuse(text, f"option {w!r} is not -mcpu=NAME or -mattr=+a,-b")
            if key == "mcpu":
                cpu = value
            else:
                mattr += [f for f in value.split(",") if f]
    native = native_features()
    feats = dict(native)
    if cpu is not None and cpu not in ("native", native_cpu_name()):
        cpus = known_cpus()
        if cpus and cpu not in cpus:
            _refuse(text, f"LLVM knows no CPU named {cpu!r}")
        for name, on in vector_features(cpu).items():
            if not on:
                turn_off(feats, name)
    for f in mattr:
        if f[0] not in "+-" or len(f) < 2:
            _refuse(text, f"-mattr entry {f!r} is not +feature or -feature")
        name = f[1:]
        if name not in native:
            _refuse(text, f"LLVM knows no feature {name!r}")
        if f[0] == "+":
            if not native[name]:
                _refuse(text, f"this machine ({native_cpu_name()}) has no {name!r}; the host "
                              f"target may only take features away")
            feats[name] = True
        else:
            turn_off(feats, name)
    return (cpu if cpu not in (None, "native") else native_cpu_name()), feats


def check() -> None:
    """Parse ``$TEPAD_HOST_TARGET`` now: a TepadError naming it if its value is not valid."""
    _forced(forced_text())


__all__ = ["ENV", "check", "describe_host", "forced_text", "host_cpu_name", "host_feature_string",
           "host_features", "known_cpus", "native_cpu_name", "native_features", "turn_off"]
