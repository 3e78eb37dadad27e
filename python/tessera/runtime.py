"""The runtime: load a saved program and run it, without the compiler.

``tessera.runtime.load(path)`` returns an :class:`Executable` that takes NumPy arrays or any
DLPack tensor (PyTorch, ``tessera.nd.NDArray``) and returns NumPy arrays (or, with
``run_ndarray``, ``tessera.nd.NDArray``). This module imports only the ``tessera._runtime``
extension (linked against ``libtessera_runtime``), so a deployed service that uses it never
loads the compiler. ``tessera.build`` returns the same :class:`Executable`.
"""
import os as _os

from . import _runtime
from .error import TesseraTypeError as _TesseraTypeError

__all__ = ["Executable", "load", "read_npy", "set_log_level", "write_npy"]


def _path(path):
    """A file system path from a str or os.PathLike (TypeError for anything else)."""
    path = _os.fspath(path)
    if not isinstance(path, str):
        raise _TesseraTypeError(f"expected a str or os.PathLike path, got {type(path).__name__}")
    return path


class Executable:
    """A compiled model. ``ex.run(x=array)`` or ``ex(x=array)`` runs it (inputs may also be
    positional, in ``ex.input_names`` order); the result is one NumPy array, or a tuple
    when @main returns a tuple (flattened)."""

    def __init__(self, core):
        self._core = core  # a tessera._runtime.Executable
        # Fixed for the executable: read once rather than on every run.
        self._names = tuple(core.input_names)
        self._returns_tuple = core.returns_tuple

    @property
    def input_names(self):
        """@main's parameter names, in order."""
        return list(self._names)

    @property
    def input_types(self):
        """(shape, dtype name) of each input, in ``input_names`` order."""
        return [(tuple(shape), dtype) for shape, dtype in self._core.input_types]

    @property
    def output_types(self):
        """(shape, dtype name) of each output, in the order ``run`` returns them."""
        return [(tuple(shape), dtype) for shape, dtype in self._core.output_types]

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
        """The generated C of a native build in this process (None for other backends and
        for a loaded program, which keeps only the compiled code)."""
        return self._core.source() or None

    def _inputs(self, args, kwargs):
        names = self._names
        if len(args) > len(names):
            raise _TesseraTypeError(f"the model takes {len(names)} input(s) ({', '.join(names)}), "
                                   f"got {len(args)} positional")
        inputs = dict(zip(names, args))
        for key, value in kwargs.items():
            if key in inputs:
                raise _TesseraTypeError(f"input '{key}' given more than once")
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
        if self._returns_tuple or len(outputs) != 1:
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
        """(Needs the compiler, which it imports, to read and render the report.) The choices of the Collage search that built this program
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
                for name, (shape, dtype) in zip(self.input_names, self.input_types):
                    inputs[name] = (rng.uniform(-1, 1, shape).astype(dtype)
                                    if dtype.startswith("float") else np.zeros(shape, dtype))
            measured = self.benchmark(repeat=20, **inputs)["median_ms"]
        return CollageReport(text, measured)


def load(path, num_threads=0):
    """Loads an executable written by ``Executable.save``; ``num_threads`` (0: the build
    target's, saved in the file, whose 0 means all cores). Needs no compiler."""
    return Executable(_runtime.load(_path(path), num_threads))


def read_npy(path):
    """Reads a .npy file with Tessera's reader."""
    return _runtime.read_npy(_path(path))


def write_npy(path, array):
    """Writes a NumPy array as a .npy file with Tessera's writer."""
    import numpy as np
    _runtime.write_npy(_path(path), np.asarray(array))


def __getattr__(name):
    # The interpreter's evaluate/run lived here before; they need the compiler.
    if name in ("evaluate", "evaluate_function", "run"):
        from . import interpreter
        return getattr(interpreter, name)
    raise AttributeError(f"module 'tessera.runtime' has no attribute '{name}'")


def set_log_level(level):
    """Sets what the library logs to stderr: "trace", "debug", "info", "warn" (the default,
    or the TESSERA_LOG_LEVEL environment variable), "error" or "off". The runtime and the
    compiler share the one logger. An unknown level raises TesseraValueError."""
    _runtime.set_log_level(level)
