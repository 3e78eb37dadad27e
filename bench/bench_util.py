"""Timing helpers shared by the benchmarks: one pinned core, and the median of timed calls."""
import os
import statistics
import time


def pin_to_one_core():
    """Both peers run on one pinned core: two vCPUs here give 1x-2x from moment to moment."""
    try:
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    except (AttributeError, OSError):
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
