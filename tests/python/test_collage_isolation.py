"""Collage measures candidates in a worker process: a backend whose kernels crash, abort,
hang or write NaN (C kernels from register_external(compile_with=fn)) is marked invalid
with the reason, the worker is replaced, and the build goes on and is right."""
import subprocess

import numpy as np
import pytest

import tessera
from helpers import COLLAGE_CHAIN
from tessera import transform
from tessera.pattern import is_op, wildcard

# nn.relu in COLLAGE_CHAIN: (8, 32) float32 in, the same out.
BODIES = {
    "segfault": "*(volatile int*)0 = 1;",
    "abort": "__builtin_trap();",
    "hang": "for (volatile int i = 0;; ++i) {}",
    "nan": "float* out = (float*)b[1]; for (int i = 0; i < 256; ++i) out[i] = __builtin_nanf(\"\");",
    "good": ("const float* in = (const float*)b[0]; float* out = (float*)b[1];"
             " for (int i = 0; i < 256; ++i) out[i] = in[i] > 0 ? in[i] : 0;"),
}


def register(kind):
    name = f"pytest_{kind}"

    def c_source(partition, c_name):
        assert partition.attrs["Compiler"] == name
        return (f"int32_t {c_name}(void* const* b, const TsKernelEnv* e) {{\n"
                f"  {BODIES[kind]}\n  return 0;\n}}\n")

    tessera.backend.register_external(name, [("relu", is_op("nn.relu")(wildcard()))],
                                      compile_with=c_source)
    return name


def build(kind, **config):
    name = register(kind)
    base = {"collage.enable": True, "collage.cost_db": "", "collage.measure_timeout_s": 2.0,
            "collage.native_max_depth": 2, "collage.measure_repeat": 3}
    base.update(config)
    mod = tessera.parse(COLLAGE_CHAIN)
    with transform.PassContext(opt_level=3, config=base):
        ex = tessera.build(mod, target=["native -num_threads=1", name])
    rng = np.random.default_rng(0)
    feeds = {"x": rng.uniform(-1, 1, (8, 16)).astype("float32"),
             "w": rng.uniform(-1, 1, (32, 16)).astype("float32")}
    np.testing.assert_allclose(ex(**feeds), tessera.run(mod, **feeds), rtol=1e-4, atol=1e-5)
    return ex.collage_report().data, name


@pytest.mark.parametrize("kind, reason", [
    ("segfault", "crashed the measurement worker (killed by signal 11"),
    ("abort", "crashed the measurement worker (killed by signal"),
    ("hang", "timed out: the candidate ran longer than 2 s"),
    ("nan", "holds NaN or infinity"),
])
def test_broken_candidates_become_invalid(kind, reason):
    report, name = build(kind)
    rejected = [r for f in report["functions"] for r in f["rejected"] if r["spec"] == name]
    assert rejected and all(reason in r["reason"] for r in rejected), rejected
    assert name not in {k["backend"] for f in report["functions"] for k in f["kernels"]}
    # The guard rules out the library's classic partitioning the same way.
    assert reason.split(":")[0] in report["guard"]["errors"][f"partition_for_{name}"]
    if kind in ("segfault", "abort", "hang"):
        assert report["measure"]["workers_started"] >= 2   # replaced after the failure


def test_working_c_kernels_are_measured():
    report, name = build("good")
    assert not [r for f in report["functions"] for r in f["rejected"] if r["spec"] == name]
    assert "errors" not in report["guard"]
    assert report["measure"]["workers_started"] == 1


def test_non_finite_outputs_are_caught_in_process_too():
    report, name = build("nan", **{"collage.measure_isolate": False, "collage.guard": False})
    rejected = [r for f in report["functions"] for r in f["rejected"] if r["spec"] == name]
    assert rejected and "holds NaN" in rejected[0]["reason"]
    assert report["measure"]["workers_started"] == 0


def test_c_source_errors():
    with pytest.raises(tessera.TesseraValueError, match="compile_with"):
        tessera.backend.register_external("pytest_bad", [("relu", is_op("nn.relu")(wildcard()))],
                                          compile_with="fortran")
    with pytest.raises(tessera.TesseraTypeError, match="compile_with"):
        tessera.backend.register_external("pytest_bad", [("relu", is_op("nn.relu")(wildcard()))],
                                          compile_with=3)


def test_keys_without_effect_are_said(tessera_cli, tmp_path):
    # A timeout cannot stop a candidate timed in the compiler's own process: said, not dropped.
    model = tmp_path / "chain.txt"
    model.write_text(COLLAGE_CHAIN)
    r = subprocess.run([tessera_cli, "compile", str(model), "-o", str(tmp_path / "m.tsx"), "--collage",
                        "--target", "native -num_threads=1", "--config", "collage.cost_db=",
                        "--config", "collage.guard=false", "--config", "collage.measure_isolate=false",
                        "--config", "collage.measure_timeout_s=5"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert "collage.measure_timeout_s has no effect with collage.measure_isolate=false" in r.stderr
