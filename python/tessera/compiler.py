"""Compiling modules for targets: ``tessera.build`` returns a
:class:`tessera.runtime.Executable` (``tessera.load`` reads a saved one back)."""
from . import _core
from .error import TesseraTypeError
from .ir import as_module
from . import runtime
from .runtime import Executable  # noqa: F401  (build returns one; re-exported)

__all__ = ["build", "load", "list_targets", "lower", "Executable"]



def build(mod, target="native"):
    """Compiles ``mod`` (an IRModule or a Function) under the current PassContext for
    ``target``: a string such as ``"native"``, ``"native -num_threads=1"`` or ``"interp"``,
    or a list of them (the first runs the model)."""
    mod = as_module(mod)
    if isinstance(target, str):
        targets = [target]
    elif isinstance(target, (list, tuple)):
        targets = list(target)
    else:
        raise TesseraTypeError(f"target must be a string or a list of strings, got "
                               f"{type(target).__name__}")
    if not all(isinstance(t, str) for t in targets):
        raise TesseraTypeError("target must be a string or a list of strings")
    return Executable(_core.build(mod, targets))


def load(path, num_threads=0):
    """Loads an executable written by ``Executable.save``, with the compiler loaded too, so
    programs with interpreted kernels (``target="interp"``) load as well. A deployed service
    uses :func:`tessera.runtime.load`, which needs only the runtime."""
    return runtime.load(path, num_threads)


def lower(mod):
    """``mod`` after build's pipeline: @main calls PrimFuncs through call_tir."""
    return _core.lower_for_build(as_module(mod))


def list_targets():
    """Registered backends: name, description and options (name, type, default, text)."""
    return _core.list_targets()
