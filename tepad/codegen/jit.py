"""llvmlite JIT: host target machine, O3 (new pass manager, vectorizers on), MCJIT engine.

Each ``JitModule`` owns a fresh TargetMachine and its MCJIT engine (the engine takes ownership
of both the module and the target machine: sharing one TargetMachine between engines crashes at
interpreter exit). Function addresses stay valid while the ``JitModule`` lives.
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import logging
import os
import threading

from .._lazy import lazy_module
from ..errors import InternalError, TepadError
from ..target.host import host_cpu_name, host_feature_string
from .symbols import provided

llvm = lazy_module("llvmlite.binding")

log = logging.getLogger(__name__)
_lock = threading.Lock()


# libgomp's idle workers spin this many times (about 26 ns each here, so ~2.6 ms) before
# they sleep, unless the user set GOMP_SPINCOUNT or OMP_WAIT_POLICY. A worker that went to
# sleep costs ~45 us to wake on this kind of VM (a halted vCPU), which is more than a whole
# short kernel (row sums: 30 us); libgomp's own default (300000, ~8 ms of a busy core after
# every call) is longer than back-to-back calls need.
GOMP_SPIN_COUNT = 100_000
_gomp_handle = None


@functools.cache
def _init() -> bool:
    """Initialize the native target once; return whether libgomp could be loaded.

    libgomp reads its settings when it is loaded, so the spin default is put in the environment
    for the load only (a libgomp some other library loaded first keeps its own settings). It
    is opened twice: by LLVM (so JIT code resolves ``GOMP_parallel``) and by ctypes, whose
    handle is never closed. At interpreter exit llvmlite ``dlclose``s the libraries it
    loaded; without the second reference libgomp would be unmapped under worker threads that
    are still spinning in it (a segfault at exit).
    """
    global _gomp_handle
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    try:    # float16 conversions on CPUs without F16C are calls into libgcc (GCC >= 12)
        llvm.load_library_permanently("libgcc_s.so.1")
    except RuntimeError as err:  # pragma: no cover - depends on the machine
        log.warning("libgcc_s not loaded (%s): float16 needs an F16C CPU", err)
    # only while libgomp loads (it reads its settings then), so child processes do not inherit it
    ours = "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ
    if ours:
        os.environ["GOMP_SPINCOUNT"] = str(GOMP_SPIN_COUNT)
    try:
        _gomp_handle = ctypes.CDLL("libgomp.so.1", mode=ctypes.RTLD_GLOBAL)
        llvm.load_library_permanently("libgomp.so.1")
        return True
    except Exception as err:  # pragma: no cover - depends on the machine
        log.warning("libgomp not found (%s): parallel loops will run serially", err)
        return False
    finally:
        if ours:
            del os.environ["GOMP_SPINCOUNT"]


def have_gomp() -> bool:
    return _init()


def host_target_machine(opt: int = 3, cpu: str | None = None,
                        features: str | None = None, pic: bool = False) -> llvm.TargetMachine:
    """TargetMachine for this CPU: ``cpu`` (default: the host's name) and the feature string
    ``features`` (default: the host's, AVX2 / AVX-512 ...; the host is the one
    ``$TEPAD_HOST_TARGET`` names, if set: ``tepad.target.host``). ``pic``: position-independent
    code for an object file that goes into a shared library, instead of JIT code."""
    _init()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(cpu=cpu or host_cpu_name(),
                                        features=features if features is not None
                                        else host_feature_string(),
                                        opt=opt, reloc="pic" if pic else "default",
                                        jit=not pic)


# LLVM 22.1 (llvmlite 0.50) miscompiles valid IR in both of its auto-vectorizers, so both stay
# off; tepad emits explicit vector code for `vectorize`, and the auto-vectorizers gained at
# most a few percent on the benchmark kernels (W1-W5 and the rolling chain, same run):
# * SLP: a broken function ("Instruction does not dominate all uses") after fully unrolling
#   small loops with `// 2` and `% 2` index math; LLVM then aborts the process (fuzz seed
#   2026, case 83);
# * loop vectorizer: a guarded store loop `if i*4 + f % 4 < m: T1[i*4 + f % 4] = 0` became
#   masked vector stores that write past T1 (heap corruption; fuzz seed 7002, case 1956).
SLP_VECTORIZE = False
LOOP_VECTORIZE = False


# LLVM's full-unroll cost threshold at O3 (``-unroll-threshold-aggressive``) and at O2 (the
# value a deep nest gets, see ``deep_nest_options``).
UNROLL_THRESHOLD_O3 = 300
UNROLL_THRESHOLD_O2 = 150
#: kernels whose loops nest deeper than this are compiled with ``deep_nest_options``
DEEP_NEST_LOOPS = 24


@contextlib.contextmanager
def deep_nest_options(loop_depth: int):
    """LLVM's options for a kernel whose loops nest ``loop_depth`` deep, for the ``with``
    block (optimizing and generating machine code); the defaults come back after it. Call
    with LLVM's lock held (``_lock``): the options are process-wide.

    Past DEEP_NEST_LOOPS (a 50-stage chain nested in its consumers' tiles):
    * O3 fully unrolls with O2's threshold only: with O3's, each 32-iteration loop of the
      chain was unrolled, and LLVM then spent seconds in IndVarSimplify over the copies and
      in machine code generation (4-6 s of the build, 1 s without);
    * no loop strength reduction (``-disable-lsr``): in such nests it took 15 % of LLVM's
      time, and the chains ran no slower without it (a 12-stage chain: 2.43 ms against
      2.56 ms with it)."""
    if loop_depth <= DEEP_NEST_LOOPS:
        yield
        return
    llvm.set_option("tepad", f"-unroll-threshold-aggressive={UNROLL_THRESHOLD_O2}")
    llvm.set_option("tepad", "-disable-lsr=true")
    try:
        yield
    finally:
        llvm.set_option("tepad", f"-unroll-threshold-aggressive={UNROLL_THRESHOLD_O3}")
        llvm.set_option("tepad", "-disable-lsr=false")


def optimize(mod: llvm.ModuleRef, tm: llvm.TargetMachine, speed_level: int = 3) -> None:
    """LLVM's default O<speed_level> module pipeline (auto-vectorizers off, see above), in
    place (a deep nest: inside ``deep_nest_options``)."""
    pto = llvm.create_pipeline_tuning_options(speed_level=speed_level)
    pto.loop_vectorization = LOOP_VECTORIZE
    pto.slp_vectorization = SLP_VECTORIZE
    pto.loop_unrolling = True
    pto.loop_interleaving = True
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)


_added_symbols: dict = {}


def add_provided_symbols() -> None:
    """Put the functions given to ``symbols.provide`` into LLVM's symbol table (those not
    there yet, or moved), so JIT code calling them by name resolves."""
    for name, address in provided().items():
        if _added_symbols.get(name) != address:
            llvm.add_symbol(name, address)
            _added_symbols[name] = address


# the C functions LLVM calls for float16 <-> float32/float64 where the CPU has no F16C
HALF_LIBCALLS = ("__extendhfsf2", "__extendhfdf2", "__truncsfhf2", "__truncdfhf2")


def check_half_libcalls(llvm_ir: str, features: str, name: str = "kernel") -> None:
    """A TepadError when code using float16 is built for a CPU without F16C and the process
    has not loaded the C functions LLVM calls for the conversions (libgcc_s of GCC 12 or
    later has them): the kernel would jump to a null address."""
    if " half" not in llvm_ir or "+f16c" in features.split(","):
        return
    _init()
    missing = [s for s in HALF_LIBCALLS if not llvm.address_of_symbol(s)]
    if missing:
        raise TepadError(f"{name} uses float16 on a CPU without F16C, where LLVM calls "
                         f"{', '.join(missing)}, which no library loaded in this process "
                         "defines (libgcc_s.so.1 of GCC 12 or later does); build for a CPU "
                         "with F16C or use float32")


def unresolved_symbols(mod: llvm.ModuleRef) -> list:
    """Names of the functions ``mod`` declares but does not define (LLVM intrinsics aside)
    that no library loaded in this process provides."""
    return [f.name for f in mod.functions
            if f.is_declaration and not f.name.startswith("llvm.")
            and not llvm.address_of_symbol(f.name)]


def _parse_import(text: str, k: int, tm) -> "llvm.ModuleRef":
    """The imported LLVM IR ``text`` (the ``k``-th ``import_llvm`` pragma) as a module for
    ``tm``'s triple and data layout; a TepadError when it does not parse or verify."""
    try:
        m = llvm.parse_assembly(text)
        m.verify()
    except RuntimeError as err:
        raise TepadError(f"pragma import_llvm #{k}: the LLVM IR given does not parse: "
                         f"{str(err).strip()}") from None
    m.triple = tm.triple
    m.data_layout = str(tm.target_data)
    return m


def _link_imports(mod, imports, tm) -> None:
    """Link the ``import_llvm`` modules into ``mod``. A function two imports define alike
    (the same micro-kernel compiled twice, its IR differing only in file names) is kept
    once; defined differently, it is a TepadError naming it."""
    defined = {}
    for k, text in enumerate(imports):
        imp = _parse_import(text, k, tm)
        for f in imp.functions:
            if f.is_declaration:
                continue
            body = str(f).split("{", 1)[-1]
            if f.name in defined:
                first_k, first_body = defined[f.name]
                if first_body != body:
                    raise TepadError(f"pragma import_llvm #{k} defines {f.name!r} differently "
                                     f"from import #{first_k}; give one of them another name")
                f.linkage = llvm.Linkage.linkonce_odr
                mod.get_function(f.name).linkage = llvm.Linkage.linkonce_odr
            else:
                defined[f.name] = (k, body)
        mod.link_in(imp)


class JitModule:
    """Parse, verify, optimize and JIT one LLVM module; keeps the engine alive."""

    def __init__(self, llvm_ir: str, opt_level: int = 3, cpu: str | None = None,
                 features: str | None = None, loop_depth: int = 0, imports=()):
        """``imports``: LLVM IR texts linked into the module before it is optimized (TVM's
        ``pragma(axis, "import_llvm", ll_code)``: functions the kernel calls by name)."""
        # None: the host's, fixed now (the host target may change later in the process)
        cpu = cpu or host_cpu_name()
        features = features if features is not None else host_feature_string()
        self._cpu, self._features = cpu, features
        self.cpu, self.features = cpu, features
        check_half_libcalls(llvm_ir, features)
        with _lock:  # LLVM context operations are not guaranteed thread-safe
            add_provided_symbols()
            tm = host_target_machine(cpu=cpu, features=features)
            try:
                mod = llvm.parse_assembly(llvm_ir)
                mod.triple = tm.triple
                mod.data_layout = str(tm.target_data)
                mod.verify()
            except RuntimeError as err:
                e = InternalError(f"tepad generated invalid LLVM IR: {err}")
                e.add_note(llvm_ir)
                raise e from None
            _link_imports(mod, imports, tm)
            self.loop_depth = loop_depth
            with deep_nest_options(loop_depth):
                optimize(mod, tm, opt_level)
                self.ll = str(mod)
                self._asm = None
                self._tm = tm
                self._mod = mod
                self._engine = None
                # MCJIT aborts the process on a symbol it cannot resolve: a kernel calling an
                # extern function that is not loaded is compiled (its source can be read) but
                # not loaded, and asking for its address is a TepadError.
                self.missing = unresolved_symbols(mod)
                if not self.missing:
                    self._engine = llvm.create_mcjit_compiler(mod, tm)
                    self._engine.finalize_object()
                    self._engine.run_static_constructors()

    @property
    def asm(self) -> str:
        """Assembly text (made on demand with a separate TargetMachine)."""
        if self._asm is None:
            with _lock, deep_nest_options(self.loop_depth):
                self._asm = host_target_machine(cpu=self._cpu, features=self._features) \
                    .emit_assembly(llvm.parse_assembly(self.ll))
        return self._asm

    def address(self, name: str) -> int:
        if self._engine is None:
            raise TepadError(
                f"kernel {name} calls external functions that are not loaded in this "
                f"process: {', '.join(self.missing)} (load their library with "
                "llvmlite.binding.load_library_permanently, or register a ctypes function "
                "with llvmlite.binding.add_symbol, before building)")
        addr = self._engine.get_function_address(name)
        if not addr:
            raise InternalError(f"no function {name!r} in the JIT module")
        return addr

    def function(self, name: str, restype, *argtypes):
        return ctypes.CFUNCTYPE(restype, *argtypes)(self.address(name))

    def global_address(self, name: str) -> int:
        """Address of the module's global variable ``name``; 0 when it has none (or the
        module is not loaded)."""
        if self._engine is None:
            return 0
        try:
            if self._mod.get_global_variable(name) is None:
                return 0
        except NameError:
            return 0
        return self._engine.get_global_value_address(name)
