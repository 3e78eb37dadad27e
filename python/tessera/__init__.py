"""Tessera: an embeddable deep-learning compiler.

The package wraps two native extensions. ``tessera.runtime`` (``load``, ``Executable``) and
``tessera.nd`` need only ``tessera._runtime`` (linked against ``libtessera_runtime``), so a
deployed service can run a saved program without loading the compiler. Everything else
wraps the compiler, ``tessera._core``: ``tessera.ir`` for the IR, ``tessera.layout`` for
layouts as index maps, ``tessera.op`` for op builders generated from the op registry,
``tessera.transform`` and ``tessera.instrument`` for the pass infrastructure, ``tessera.evaluate``/``tessera.run`` to execute modules on
NumPy arrays with the reference interpreter, and ``tessera.build`` to compile them for a
target (``"native"``: C for this CPU) into an ``Executable``.

Submodules and names load on first use (``tessera.build`` imports the compiler then), so
``import tessera.runtime`` stays light. The top-level names: ``parse``, ``build``,
``load``, ``lower``, ``list_targets``, ``set_log_level``, ``evaluate``, ``run``, ``evaluate_function``,
``Executable``, ``partition_for`` (and ``_dnnl``/``_blas``), the IR classes (``IRModule``,
``Function``, ``Var``, ``Call``, ``Constant``, ``Tuple``, ``TupleGetItem``, ``Let``,
``GlobalVar``, ``TensorType``, ``TupleType``, ``FuncType``, ``var``, ``const``,
``structural_equal``, ``structural_hash``, ``assert_structural_equal``) and the error
classes.
"""
import importlib as _importlib
from typing import TYPE_CHECKING


from .error import (  # noqa: F401
    TesseraConfigError,
    TesseraError,
    TesseraInternalError,
    TesseraIOError,
    TesseraNotFoundError,
    TesseraParseError,
    TesseraTypeError,
    TesseraUnsupportedError,
    TesseraValueError,
)

__version__ = "0.1.0"

_SUBMODULES = {
    "backend", "collage", "compiler", "error", "frontend", "instrument", "interpreter", "ir",
    "layout", "nd", "op", "partition", "pattern", "runtime", "tir", "transform",
}

# Top-level names and the submodule defining each.
_NAMES = {
    **{name: "ir" for name in (
        "Call", "Constant", "Function", "FuncType", "GlobalVar", "IRModule", "Let", "TensorType",
        "Tuple", "TupleGetItem", "TupleType", "Var", "assert_structural_equal", "const", "parse",
        "structural_equal", "structural_hash", "var")},
    **{name: "interpreter" for name in ("evaluate", "evaluate_function", "run")},
    **{name: "compiler" for name in ("build", "list_targets", "load", "lower")},
    **{name: "runtime" for name in ("Executable", "set_log_level")},
    **{name: "partition" for name in ("partition_for", "partition_for_blas", "partition_for_dnnl")},
}


if TYPE_CHECKING:  # what the lazy names below resolve to, for type checkers and IDEs
    from . import (backend, collage, compiler, frontend, instrument, interpreter,  # noqa: F401
                   ir, layout, nd, op, partition, pattern, runtime, tir, transform)
    from .compiler import build, list_targets, load, lower  # noqa: F401
    from .interpreter import evaluate, evaluate_function, run  # noqa: F401
    from .ir import (Call, Constant, Function, FuncType, GlobalVar, IRModule, Let,  # noqa: F401
                     TensorType, Tuple, TupleGetItem, TupleType, Var, assert_structural_equal,
                     const, parse, structural_equal, structural_hash, var)
    from .partition import partition_for, partition_for_blas, partition_for_dnnl  # noqa: F401
    from .runtime import Executable, set_log_level  # noqa: F401


def __getattr__(name):
    if name in _SUBMODULES:
        return _importlib.import_module(f".{name}", __name__)
    if name in _NAMES:
        value = getattr(_importlib.import_module(f".{_NAMES[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'tessera' has no attribute '{name}'")


def __dir__():
    public = {n for n in globals() if not n.startswith("_")} | {"__version__"}
    return sorted(public | _SUBMODULES | set(_NAMES))
