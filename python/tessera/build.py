"""Compiling modules for targets and running the result: ``tessera.build`` and
``tessera.load`` return an :class:`Executable` that takes NumPy arrays or any DLPack
tensor (PyTorch, ``tessera.nd.NDArray``) and returns NumPy arrays (or, with
``run_ndarray``, ``tessera.nd.NDArray``)."""
import os

from . import _core
from .error import TesseraTypeError
from .ir import Function, IRModule

__all__ = ["build", "load", "list_targets", "lower", "Executable"]


def _as_module(mod):
    if isinstance(mod, IRModule):
        return mod
    if isinstance(mod, Function):
        return IRModule.from_expr(mod)
    raise TesseraTypeError(f"expected an IRModule or a Function, got a {type(mod).__name__}")


def _path(path):
    """A file system path from a str or os.PathLike (TypeError for anything else)."""
    path = os.fspath(path)
    if not isinstance(path, str):
        raise TesseraTypeError(f"expected a str or os.PathLike path, got {type(path).__name__}")
    return path


class Executable:
    """A compiled model. ``ex.run(x=array)`` or ``ex(x=array)`` runs it (inputs may also be
    positional, in ``ex.input_names`` order); the result is one NumPy array, or a tuple
    when @main returns a tuple (flattened)."""

    def __init__(self, core):
        self._core = core

    @property
    def input_names(self):
        """@main's parameter names, in order."""
        return list(self._core.input_names)

    @property
    def kernels(self):
        """The kernel symbols @main calls, in call order."""
        return list(self._core.kernels)

    @property
    def memory_plan(self):
        """The static memory plan: arena bytes, storages, intermediates."""
        return dict(self._core.memory_plan)

    @property
    def num_threads(self):
        """Threads of the executor's pool."""
        return self._core.num_threads

    def source(self):
        """The generated C of a native build (None for other backends)."""
        return self._core.source()

    def _inputs(self, args, kwargs):
        names = self.input_names
        if len(args) > len(names):
            raise TesseraTypeError(f"the model takes {len(names)} input(s) ({', '.join(names)}), "
                                   f"got {len(args)} positional")
        inputs = dict(zip(names, args))
        for key, value in kwargs.items():
            if key in inputs:
                raise TesseraTypeError(f"input '{key}' given more than once")
            inputs[key] = value
        return inputs

    def run(self, *args, **kwargs):
        """Runs the model on NumPy arrays or DLPack tensors such as PyTorch's (by parameter
        name or position; C-contiguous CPU inputs are used without copies)."""
        return self._result(self._core.run(self._inputs(args, kwargs), False))

    __call__ = run

    def run_ndarray(self, *args, **kwargs):
        """Like :meth:`run`, but the outputs are :class:`tessera.nd.NDArray` (zero-copy
        DLPack producers: ``torch.from_dlpack(y)``, ``numpy.from_dlpack(y)``), which also
        keep bfloat16 outputs exact."""
        return self._result(self._core.run(self._inputs(args, kwargs), True))

    def _result(self, outputs):
        if self._core.returns_tuple or len(outputs) != 1:
            return tuple(outputs)
        return outputs[0]

    def benchmark(self, *args, warmup=3, repeat=10, **kwargs):
        """Times whole runs: a dict with median_ms, p90_ms, min_ms, mean_ms, repeat."""
        return self._core.benchmark(self._inputs(args, kwargs), warmup, repeat)

    def profile(self, *args, repeat=10, **kwargs):
        """Times every kernel: a dict with 'rows' (symbol, backend, calls, total_ms, mean_ms,
        share; slowest first), 'total_ms' and a printable 'table'."""
        rows, total, table = self._core.profile(self._inputs(args, kwargs), repeat)
        return {"rows": rows, "total_ms": total, "table": table}

    def save(self, path):
        """Writes the executable (graph, constants and compiled kernels) to one file."""
        self._core.save(_path(path))

    def collage_report(self, measure=False, **inputs):
        """The choices of the Collage search that built this program
        (:class:`tessera.collage.CollageReport`), or None when it was built without
        Collage. ``measure=True`` also times the program end to end (on random inputs
        unless ``inputs`` are given) so the report shows the additive error."""
        text = self._core.collage_report
        if not text:
            return None
        from .collage import CollageReport
        measured = None
        if measure:
            if not inputs:
                import numpy as np
                rng = np.random.default_rng(1)
                inputs = {}
                for name, (shape, dtype) in zip(self.input_names, self._core.input_types):
                    inputs[name] = (rng.uniform(-1, 1, shape).astype(dtype)
                                    if dtype.startswith("float") else np.zeros(shape, dtype))
            measured = self.benchmark(repeat=20, **inputs)["median_ms"]
        return CollageReport(text, measured)


def build(mod, target="native"):
    """Compiles ``mod`` (an IRModule or a Function) under the current PassContext for
    ``target``: a string such as ``"native"``, ``"native -num_threads=1"`` or ``"interp"``,
    or a list of them (the first runs the model)."""
    mod = _as_module(mod)
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
    """Loads an executable written by ``Executable.save`` (no compiler needed)."""
    return Executable(_core.load(_path(path), num_threads))


def lower(mod):
    """``mod`` after build's pipeline: @main calls PrimFuncs through call_tir."""
    return _core.lower_for_build(_as_module(mod))


def list_targets():
    """Registered backends: name, description and options (name, type, default, text)."""
    return _core.list_targets()
