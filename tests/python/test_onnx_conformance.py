"""ONNX operator conformance: runs the `node/test_*` cases of Debian's libonnx-testdata
whose ops the importer claims (tessera.frontend.onnx_supported_ops()) through Tessera's
interpreter and the native build, compares with the expected outputs and reports passed /
failed / skipped counts. Skipped (counted, with the reason) are the cases outside the
claim: an opset outside 11-17, or an import that raises TesseraUnsupportedError for a
dtype or attribute the importer rejects. Every other case must pass.

Run standalone for the full report: python3 tests/python/test_onnx_conformance.py"""
import collections
import glob
import os
import sys

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import tessera

NODE_DIR = "/usr/share/libonnx-testdata/data/node"
RTOL, ATOL = 1e-3, 1e-6  # the tolerances of ONNX's own backend test runner


def _opset(model):
    return max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
               default=0)


def _load_cases():
    """(name, model, [(inputs dict, expected list)]) for cases whose ops are all claimed."""
    claimed = set(tessera.frontend.onnx_supported_ops())
    cases = []
    for case in sorted(glob.glob(os.path.join(NODE_DIR, "test_*"))):
        path = os.path.join(case, "model.onnx")
        if not os.path.exists(path):
            continue
        model = onnx.load(path)
        if any(n.domain not in ("", "ai.onnx") for n in model.graph.node):
            continue
        if not {n.op_type for n in model.graph.node} <= claimed or not model.graph.node:
            continue
        init = {i.name for i in model.graph.initializer}
        in_names = [i.name for i in model.graph.input if i.name not in init]
        sets = []
        try:
            _read_sets(case, in_names, sets)
        except ValueError:  # sequence/optional values are not tensors: outside the claim
            sets = None
        cases.append((os.path.basename(case), model, sets))
    return cases


def _read_sets(case, in_names, sets):
    if True:
        for ds in sorted(glob.glob(os.path.join(case, "test_data_set_*"))):
            ins = [numpy_helper.to_array(onnx.load_tensor(f))
                   for f in sorted(glob.glob(os.path.join(ds, "input_*.pb")),
                                   key=lambda p: int(p.rsplit("_", 1)[1][:-3]))]
            outs = [numpy_helper.to_array(onnx.load_tensor(f))
                    for f in sorted(glob.glob(os.path.join(ds, "output_*.pb")),
                                    key=lambda p: int(p.rsplit("_", 1)[1][:-3]))]
            sets.append((dict(zip(in_names, ins)), outs))


def _compare(got, expected):
    got = list(got) if isinstance(got, tuple) else [got]
    if len(got) != len(expected):
        return f"{len(got)} outputs, expected {len(expected)}"
    for i, (g, e) in enumerate(zip(got, expected)):
        g = np.asarray(g)
        if g.shape != e.shape:
            return f"output {i}: shape {g.shape}, expected {e.shape}"
        if e.dtype.kind in "biu":
            if g.dtype != e.dtype or not np.array_equal(g, e):
                return f"output {i}: {g.dtype} values differ from expected {e.dtype}"
        elif not np.allclose(g, e, rtol=RTOL, atol=ATOL, equal_nan=True):
            return f"output {i}: max abs diff {np.nanmax(np.abs(g - e)):.3g}"
    return None


def run_conformance(native=True):
    """Runs every claimed case; returns (counts, failures, skips) where failures and skips
    are lists of (case, reason)."""
    lo, hi = tessera.frontend.onnx_supported_opsets()
    counts = collections.Counter()
    failures, skips = [], []
    for name, model, sets in _load_cases():
        opset = _opset(model)
        if sets is None:
            counts["skipped"] += 1
            skips.append((name, "test data holds non-tensor values"))
            continue
        if not lo <= opset <= hi:
            counts["skipped"] += 1
            skips.append((name, f"opset {opset} outside {lo}-{hi}"))
            continue
        try:
            mod = tessera.frontend.from_onnx(model)
        except tessera.TesseraUnsupportedError as e:
            counts["skipped"] += 1
            skips.append((name, str(e).split(": ", 1)[-1][:160]))
            continue
        except Exception as e:  # noqa: BLE001 - any other failure is a failed case
            counts["failed"] += 1
            failures.append((name, f"import: {type(e).__name__}: {e}"))
            continue
        error = None
        try:
            exe = tessera.build(mod, target="native") if native else None
            for inputs, expected in sets:
                error = _compare(tessera.evaluate(mod, **inputs), expected)
                if error:
                    error = "interpreter " + error
                    break
                if exe is not None:
                    error = _compare(exe.run(**inputs), expected)
                    if error:
                        error = "native " + error
                        break
        except Exception as e:  # noqa: BLE001
            error = f"{type(e).__name__}: {e}"
        if error:
            counts["failed"] += 1
            failures.append((name, error[:300]))
        else:
            counts["passed"] += 1
    return counts, failures, skips


def _report(counts, failures, skips, write):
    write(f"ONNX node conformance ({NODE_DIR}): passed {counts['passed']}, "
          f"failed {counts['failed']}, skipped {counts['skipped']}")
    for name, reason in skips:
        write(f"  skipped {name}: {reason}")
    for name, reason in failures:
        write(f"  FAILED  {name}: {reason}")


@pytest.mark.skipif(not os.path.isdir(NODE_DIR), reason="libonnx-testdata is not installed")
def test_onnx_node_conformance(request):
    counts, failures, skips = run_conformance(native=os.environ.get("TESSERA_CONFORMANCE_NATIVE",
                                                                    "1") != "0")
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    lines = []
    _report(counts, failures, skips, lines.append)
    if reporter is not None:
        reporter.write_line("")
        for line in lines[: 1 + (len(lines) if failures else 0)]:
            reporter.write_line(line)
    assert counts["passed"] > 100
    assert not failures, "\n".join(lines)


if __name__ == "__main__":
    c, f, s = run_conformance(native="--no-native" not in sys.argv)
    _report(c, f, s, print)
    sys.exit(1 if f else 0)
