"""Collage's search from Python: CollagePartition with the mock, custom and Python-subclass
estimators, tessera.build under collage.enable (outputs match the interpreter; the report
is kept through save/load and renders as text and HTML), config errors, and the CLI."""
import json
import subprocess

import numpy as np
import pytest

import tessera
from helpers import COLLAGE_CHAIN
from tessera import collage, transform

CHAIN = COLLAGE_CHAIN

HAVE_DNNL = any(t["name"] == "dnnl" for t in tessera.list_targets())


def inputs():
    rng = np.random.default_rng(0)
    return {"x": rng.uniform(-1, 1, (8, 16)).astype("float32"),
            "w": rng.uniform(-1, 1, (32, 16)).astype("float32")}


def ctx(**config):
    base = {"collage.launch_penalty_us": 0.0}
    base.update(config)
    return transform.PassContext(opt_level=3, config=base)


def primitive_calls(mod):
    return mod.astext().count("Primitive=1")


def test_mock_estimator_fuses_by_cost_and_reports():
    mock = collage.MockCostEstimator({"native": 1.0})
    with ctx():
        out = collage.CollagePartition("native", mock)(tessera.parse(CHAIN))
    assert primitive_calls(out) == 2  # dense+relu+abs fused, softmax alone
    report = collage.CollageReport(out.attrs["collage.report"])
    assert [k["backend"] for k in report.kernels] == ["native", "native"]
    assert report.data["estimator"] == "mock"
    assert "native" in str(report)
    assert mock.num_estimates == report.data["estimated"]
    assert mock.estimate(tessera.parse(CHAIN), "native") > 0  # callable from Python too


def test_python_estimator_errors_make_candidates_invalid():
    calls = []

    class Picky(collage.CostEstimator):
        def estimate(self, mod, target):
            calls.append(target)
            text = mod.astext()
            if "abs" in text and "nn.relu" in text:
                raise RuntimeError("no relu+abs kernels today")
            return 1e-6 * text.count("(")

    with ctx():
        out = collage.CollagePartition(["native"], Picky())(tessera.parse(CHAIN))
    report = collage.CollageReport(out.attrs["collage.report"])
    rejected = report.data["functions"][0]["rejected"]
    assert rejected and all("no relu+abs kernels today" in r["reason"] for r in rejected)
    for k in report.kernels:
        assert not ("abs" in k["label"] and "nn.relu" in k["label"])
    assert calls and set(calls) == {"native"}


def test_custom_estimator_and_progress():
    seen = []
    est = collage.CustomCostEstimator(lambda mod, target: 1e-6)
    with ctx():
        collage.CollagePartition("native", est, progress=lambda d, t: seen.append((d, t)))(
            tessera.parse(CHAIN))
    assert seen and seen[-1][0] == seen[-1][1]


def test_uncoverable_op_is_a_clear_error():
    est = collage.CustomCostEstimator(lambda mod, target: float("inf"))
    with ctx(), pytest.raises(tessera.TesseraValueError, match="every candidate holding node"):
        collage.CollagePartition("native", est)(tessera.parse(CHAIN))


def test_bad_config_values_are_config_errors():
    with pytest.raises(tessera.TesseraConfigError, match="collage.byoc_fusion_style"):
        transform.PassContext(config={"collage.byoc_fusion_style": ["dnnl"]})
    with pytest.raises(tessera.TesseraConfigError, match="collage.search"):
        transform.PassContext(config={"collage.search": "beam"})
    with pytest.raises(tessera.TesseraConfigError):
        transform.PassContext(config={"collage.measure_percentile": 150.0})
    with ctx(**{"collage.estimator": "nope"}), pytest.raises(tessera.TesseraNotFoundError,
                                                             match="unknown cost estimator"):
        collage.CollagePartition("native")(tessera.parse(CHAIN))
    with pytest.raises(tessera.TesseraValueError):
        tessera.build(tessera.parse(CHAIN), target="native -compiler=nope")


@pytest.mark.skipif(not HAVE_DNNL, reason="built without oneDNN")
def test_build_with_collage_matches_interpreter(tmp_path):
    mod = tessera.parse(CHAIN)
    want = tessera.run(mod, **inputs())
    collage.register_estimator("pytest_mock", collage.MockCostEstimator({"native": 2.0, "dnnl": 1.0}))
    with ctx(**{"collage.enable": True, "collage.estimator": "pytest_mock"}):
        ex = tessera.build(mod, target=["native -num_threads=1", "dnnl"])
    np.testing.assert_allclose(ex(**inputs()), want, rtol=1e-4, atol=1e-5)
    report = ex.collage_report()
    assert "dnnl" in {k["backend"] for k in report.kernels}
    # The guard second-guesses only the measuring estimator: the mock's plan is kept.
    assert report.data["guard"].startswith("skipped") and report.chosen == "collage"
    measured = ex.collage_report(measure=True)
    assert measured.additive_error_us is not None
    path = tmp_path / "partition.html"
    report.save_html(path)
    html = path.read_text()
    assert html.startswith("<!DOCTYPE html>") and "dnnl" in html
    ex.save(tmp_path / "m.tsx")
    assert json.loads(tessera.load(tmp_path / "m.tsx").collage_report().json) == report.data


def test_build_without_collage_has_no_report():
    assert tessera.build(tessera.parse(CHAIN), target="native").collage_report() is None


def test_collage_measures_by_default(tessera_cli, tmp_path):
    """The default estimator builds and times every candidate (small model: seconds)."""
    model = tmp_path / "chain.txt"
    model.write_text(CHAIN)
    html = tmp_path / "p.html"
    r = subprocess.run([str(tessera_cli), "collage", "explain", str(model), "--target",
                        "native -num_threads=1", "-o", str(html),
                        "--config", "collage.native_max_depth=2", "--config", "collage.refine=1"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "estimator: measure" in r.stdout and "guard" in r.stdout
    assert "calibration: round 0" in r.stdout
    import re
    assert re.search(r"guard .*collage [0-9.]+ native [0-9.]+", r.stdout), r.stdout  # timed both
    assert html.read_text().startswith("<!DOCTYPE html>")


def test_mock_budget_exceeded_stops_the_search():
    """The mock's max_estimates is a hard limit (TVM's semantics): an internal error."""
    mock = collage.MockCostEstimator({"native": 1.0}, max_estimates=1)
    with ctx(), pytest.raises(tessera.TesseraInternalError, match="more than 1 estimates"):
        collage.CollagePartition("native", mock)(tessera.parse(CHAIN))


def test_build_progress_two_natives_and_bad_targets():
    """Progress reaches Python from build(); two native targets are two specs; whole-model
    targets of different kinds and a library without a pattern table are clear errors."""
    seen = []
    collage.set_progress(lambda done, total: seen.append((done, total)))
    try:
        collage.register_estimator("pytest_unit", collage.MockCostEstimator({"native": 1.0}))
        with ctx(**{"collage.enable": True, "collage.estimator": "pytest_unit",
                    "collage.guard": False}):
            ex = tessera.build(tessera.parse(CHAIN), target=["native", "native -num_threads=1"])
    finally:
        collage.set_progress(None)
    assert seen and seen[-1][0] == seen[-1][1]
    assert ex.collage_report().data["specs"] == ["native", "native_2", "host"]
    with ctx(), pytest.raises(tessera.TesseraValueError, match="must be of one kind"):
        collage.CollagePartition(["native", "interp"], collage.MockCostEstimator({"native": 1.0}))(
            tessera.parse(CHAIN))
    with pytest.raises(tessera.TesseraValueError, match="at least one"):
        tessera.backend.register_external("pytest_empty", [])
    tessera.pattern.register_pattern_table("pytest_table", [])
    with pytest.raises(tessera.TesseraNotFoundError, match="empty pattern table"):
        collage.byoc("pytest_table", max_depth=2)
    with pytest.raises(tessera.TesseraValueError, match="built in"):
        tessera.backend.register_external("dnnl", [])


def test_library_regions_are_candidates():
    """A library's largest regions (its candidates merged where they touch) are measured
    whole, so a region beats its pieces when it is cheaper (here: the mock's 0.9**k)."""
    from tessera.pattern import is_op, wildcard
    tessera.backend.register_external("pytest_regions", [
        ("relu", is_op("nn.relu")(wildcard())),
        ("add", is_op("add")(wildcard(), wildcard()))])
    text = """
def @main(%x: Tensor[(4, 8), float32]) {
  %0 = nn.relu(%x);
  %1 = add(%0, %x);
  %2 = nn.relu(%1);
  %3 = add(%2, %1);
  nn.relu(%3)
}"""
    mock = collage.MockCostEstimator({"native": 10.0, "pytest_regions": 1.0})
    with ctx(**{"collage.byoc_max_depth": 1, "collage.byoc_fusion_style": ["pytest_regions.NoFusion"]}):
        out = collage.CollagePartition(["native", "pytest_regions"], mock)(tessera.parse(text))
    kernels = collage.CollageReport(out.attrs["collage.report"]).kernels
    assert [k["rule"] for k in kernels] == ["pytest_regions.region"]
    assert len(kernels[0]["indexes"]) == 5
    with ctx(**{"collage.byoc_max_depth": 1, "collage.library_regions": False,
                "collage.byoc_fusion_style": ["pytest_regions.NoFusion"]}):
        out = collage.CollagePartition(["native", "pytest_regions"], mock)(tessera.parse(text))
    assert len(collage.CollageReport(out.attrs["collage.report"]).kernels) == 5


def test_new_user_review_cases(tessera_cli, tmp_path):
    """Fixes from a new user's review: pre-made kernels are kept, an unused library
    target is an error, plain functions are estimators, damaged reports are parse errors,
    and the CLI takes arrays in --config."""
    fused = transform.FuseOps()(tessera.parse(CHAIN))
    collage.register_estimator("pytest_fn", lambda mod, target: 1e-6)   # a plain function
    with ctx(**{"collage.enable": True, "collage.estimator": "pytest_fn"}):
        ex = tessera.build(fused, target="native -num_threads=1")
    np.testing.assert_allclose(ex(**inputs()), tessera.run(tessera.parse(CHAIN), **inputs()),
                               rtol=1e-4, atol=1e-5)
    if HAVE_DNNL:
        with pytest.raises(tessera.TesseraValueError, match="no partitions for it"):
            tessera.build(tessera.parse(CHAIN), target=["native", "dnnl"])
    with ctx(**{"collage.enable": True}), pytest.raises(tessera.TesseraValueError,
                                                        match="unknown target kind|'foo'"):
        tessera.build(tessera.parse(CHAIN), target=["native", "foo"])
    bad = subprocess.run([str(tessera_cli), "collage", "explain", str(tmp_path / "none.txt"),
                          "-o", "/nonexistent/dir/p.html"], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "cannot write" in bad.stderr
    with pytest.raises(tessera.TesseraTypeError, match="cost estimator"):
        collage.register_estimator("pytest_bad", 5)
    with pytest.raises(tessera.TesseraParseError, match="not a Collage report"):
        str(collage.CollageReport("{}"))
    model = tmp_path / "chain.txt"
    model.write_text(CHAIN)
    r = subprocess.run([str(tessera_cli), "opt", str(model), "--config",
                        "collage.byoc_fusion_style=[dnnl.NoFusion,blas.TVMFusion]"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("name", ["mlp", "mnist_cnn", "resnet_block", "mobilenet_v2_block",
                                  "squeezenet_fire", "transformer_layer"])
def test_collage_built_models_match_numpy(name):
    """CNN and transformer test models built by Collage over every backend this build has,
    with costs that mix the backends arbitrarily (a hash of each kernel), match NumPy."""
    import zlib
    import onnx_models
    import onnx_numpy_ref
    model = onnx_models.MODELS[name]()
    feeds = onnx_models.input_for(model)
    want = onnx_numpy_ref.run(model, feeds)
    mod = tessera.frontend.from_onnx(model)
    targets = ["native -num_threads=1"] + [t["name"] for t in tessera.list_targets()
                                           if t["name"] in ("dnnl", "blas")]
    collage.register_estimator(
        "pytest_hash", lambda m, target: 1e-6 * (1 + zlib.crc32((target + m.astext()).encode()) % 97))
    with ctx(**{"collage.enable": True, "collage.estimator": "pytest_hash"}):
        ex = tessera.build(mod, target=targets)
    got = ex(**feeds)
    got = list(got) if isinstance(got, tuple) else [got]
    for g, e in zip(got, want):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4, err_msg=name)
    backends = {k["backend"] for k in ex.collage_report().kernels}
    assert backends <= {"native", "dnnl", "blas"} and backends


def test_every_collage_key_takes_effect():
    """coalesce, the tvm_max_depth alias and the measure_* keys change what happens."""
    from tessera.pattern import is_op, wildcard
    tessera.backend.register_external("pytest_keys", [("relu", is_op("nn.relu")(wildcard()))])
    text = """
def @main(%x: Tensor[(4, 8), float32]) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%0);
  nn.relu(%1)
}"""
    mock = collage.MockCostEstimator({"native": 10.0, "pytest_keys": 1.0})
    base = {"collage.library_regions": False, "collage.byoc_max_depth": 1}
    for coalesce, calls in ((True, 1), (False, 3)):   # one merged partition, or three calls
        with ctx(**base, **{"collage.coalesce": coalesce}):
            out = collage.CollagePartition(["native", "pytest_keys"], mock)(tessera.parse(text))
        main = out.astext().split("def @main")[1].split("\ndef ")[0]
        assert main.count("@collage_pytest_keys") == calls, coalesce
    native = collage.MockCostEstimator({"native": 1.0})
    with ctx(**{"collage.tvm_max_depth": 1}):
        out = collage.CollagePartition("native", native)(tessera.parse(text))
    assert primitive_calls(out) == 3          # the alias limits native kernels to one op
    with ctx(**{"collage.tvm_max_depth": 1, "collage.native_max_depth": 3}):
        out = collage.CollagePartition("native", native)(tessera.parse(text))
    assert primitive_calls(out) == 1          # native_max_depth wins when both are given
    keys = {"collage.measure_repeat": 3, "collage.measure_number": 2,
            "collage.measure_percentile": 90.0, "collage.measure_flush_cache": False,
            "collage.measure_isolate": False, "collage.measure_timeout_s": 5.0,
            "collage.measure_check_finite": False, "collage.native_max_depth": 1,
            "collage.cost_db": ""}
    with ctx(**keys):
        out = collage.CollagePartition("native -num_threads=1")(tessera.parse(text))
    measure = collage.CollageReport(out.attrs["collage.report"]).data["measure"]
    assert measure == {"repeat": 3, "number": 2, "percentile": 90.0, "flush_cache": False,
                       "isolate": False, "timeout_s": 5.0, "check_finite": False,
                       "runner": "local", "workers_started": 0}


def test_external_backend_executable_loads_in_another_process(tmp_path):
    """A program with partitions of a Python-declared backend saves and loads in a process
    that never registered it (its kernels are compiled code)."""
    import os
    import sys
    from tessera.pattern import is_op, wildcard
    tessera.backend.register_external("pytest_saved", [("relu", is_op("nn.relu")(wildcard()))])
    mod = tessera.parse(CHAIN)
    ex = tessera.build(mod, target="native -compiler=pytest_saved")
    assert any(r["backend"] == "executable" for r in ex.profile(**inputs())["rows"])
    ex.save(tmp_path / "m.tsx")
    np.save(tmp_path / "want.npy", ex(**inputs()))
    for name, value in inputs().items():
        np.save(tmp_path / f"{name}.npy", value)
    code = (f"import numpy as np, tessera; ex = tessera.load({str(tmp_path / 'm.tsx')!r}); "
            f"got = ex(x=np.load({str(tmp_path / 'x.npy')!r}), w=np.load({str(tmp_path / 'w.npy')!r})); "
            f"np.testing.assert_allclose(got, np.load({str(tmp_path / 'want.npy')!r}), rtol=1e-6)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stderr


def test_external_native_backends_take_min_parallel_work():
    """A backend whose partitions the native generator compiles declares the generator's
    -min_parallel_work (the host's value reaches its partitions); one writing its own C
    does not, so the option is an error there rather than ignored."""
    from tessera.pattern import is_op, wildcard
    tessera.backend.register_external("pytest_serial", [("relu", is_op("nn.relu")(wildcard()))])
    options = {t["name"]: [o[0] for o in t["options"]] for t in tessera.list_targets()}
    assert "min_parallel_work" in options["pytest_serial"]
    x = tessera.var("x", shape=(4, 8))
    mod = tessera.IRModule.from_expr(tessera.Function([x], tessera.op.nn.relu(x)))
    data = np.arange(32, dtype="float32").reshape(4, 8) - 16
    for target in ("native -compiler=pytest_serial -min_parallel_work=0",
                   ["native -min_parallel_work=7 -compiler=pytest_serial",
                    "pytest_serial -min_parallel_work=0"]):
        np.testing.assert_array_equal(tessera.build(mod, target)(x=data), np.maximum(data, 0))
    with pytest.raises(tessera.TesseraValueError, match="min_parallel_work must be >= 0"):
        tessera.build(mod, ["native -compiler=pytest_serial", "pytest_serial -min_parallel_work=-1"])
    tessera.backend.register_external("pytest_serial_c", [("relu", is_op("nn.relu")(wildcard()))],
                                      compile_with=lambda fn, name: "")
    options = {t["name"]: [o[0] for o in t["options"]] for t in tessera.list_targets()}
    assert "min_parallel_work" not in options["pytest_serial_c"]
