"""Timing helpers shared by the benchmarks: one pinned core, PyTorch's thread count, and
the median of timed calls."""
import ctypes
import os
import statistics
import time

_ALL_CORES = None


def pin_to_one_core():
    """Both peers run on one pinned core: two vCPUs here give 1x-2x from moment to moment."""
    global _ALL_CORES
    try:
        if _ALL_CORES is None:
            _ALL_CORES = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {sorted(_ALL_CORES)[0]})
    except (AttributeError, OSError):
        pass


def unpin():
    """Undoes pin_to_one_core (for the runs on every core)."""
    try:
        if _ALL_CORES is not None:
            os.sched_setaffinity(0, _ALL_CORES)
    except (AttributeError, OSError):
        pass


def set_torch_threads(torch, n):
    """PyTorch on `n` threads, its BLAS included: Debian's torch calls OpenBLAS's pthread
    build for matrix products, which torch.set_num_threads does not reach, so a "1 thread"
    PyTorch ran its GEMMs on every core (a transformer encoder 1.8x faster than pinned)."""
    torch.set_num_threads(n)
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split()[-1] for line in f if "libopenblas" in line}
    except OSError:
        libs = set()
    for lib in sorted(libs):
        try:
            ctypes.CDLL(lib).openblas_set_num_threads(ctypes.c_int(n))
        except (OSError, AttributeError):
            pass


def time_fn(fn, warmup, repeat):
    """The median wall time of `repeat` calls of fn() after `warmup` calls, in ms."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


NOTES_MARKER = "<!-- notes: kept when the tables above are regenerated -->"


def write_report(path, lines):
    """Writes a generated report to `path`, keeping the hand-written notes below the marker."""
    old = path.read_text() if path.exists() else ""
    notes = old[old.index(NOTES_MARKER):] if NOTES_MARKER in old else NOTES_MARKER + "\n"
    path.write_text("\n".join(lines) + "\n\n" + notes)
