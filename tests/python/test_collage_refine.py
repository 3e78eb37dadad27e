"""Collage's graph-level refinement (collage.search = "dp+refine"): with a mock estimator
whose additive model is deliberately wrong (a backend whose relu kernel is really slow
looks cheapest), timing covers end to end finds the truly faster partition; the budget
bounds it; the report says what changed."""
import numpy as np
import pytest

import tessera
from helpers import COLLAGE_CHAIN
from tessera import collage, transform
from tessera.pattern import is_op, wildcard


def slow_relu(partition, c_name):
    """A right relu over (8, 32) floats that first spins for a while."""
    return (f"int32_t {c_name}(void* const* b, const TsKernelEnv* e) {{\n"
            "  const float* in = (const float*)b[0]; float* out = (float*)b[1];\n"
            "  for (volatile int r = 0; r < 200000; ++r) {}\n"
            "  for (int i = 0; i < 256; ++i) out[i] = in[i] > 0 ? in[i] : 0;\n"
            "  return 0;\n}\n")


@pytest.fixture(scope="module")
def wrong_model():
    tessera.backend.register_external("pytest_slowrelu", [("relu", is_op("nn.relu")(wildcard()))],
                                      compile_with=slow_relu)
    # The additive model says the slow backend is ten times cheaper than native.
    collage.register_estimator("pytest_wrong",
                               collage.MockCostEstimator({"native": 10.0, "pytest_slowrelu": 1.0}))


def build(search, budget=60.0):
    mod = tessera.parse(COLLAGE_CHAIN)
    config = {"collage.enable": True, "collage.cost_db": "", "collage.estimator": "pytest_wrong",
              "collage.search": search, "collage.refine_budget_s": budget}
    with transform.PassContext(opt_level=3, config=config):
        ex = tessera.build(mod, target=["native -num_threads=1", "pytest_slowrelu"])
    rng = np.random.default_rng(0)
    feeds = {"x": rng.uniform(-1, 1, (8, 16)).astype("float32"),
             "w": rng.uniform(-1, 1, (32, 16)).astype("float32")}
    np.testing.assert_allclose(ex(**feeds), tessera.run(mod, **feeds), rtol=1e-4, atol=1e-5)
    return ex.collage_report()


def backends(report):
    return {k["backend"] for k in report.kernels}


def test_refinement_finds_the_truly_faster_partition(wrong_model):
    dp = build("dp")
    assert "pytest_slowrelu" in backends(dp)        # the wrong model's choice
    assert "refinement" not in dp.data
    refined = build("dp+refine")
    assert backends(refined) == {"native"}          # the relu is back on native
    r = refined.data["refinement"]
    assert r["changes"] and r["refined_ms"] < r["search_ms"] and r["speedup"] > 1.5
    assert all(c["confirmed_ms"] < c["best_again_ms"] for c in r["changes"])
    assert r["evaluated"] >= len(r["changes"]) and r["seconds"] < 60
    text = str(refined)
    assert "refinement (dp+refine" in text and "kept: " in text


def test_zero_budget_keeps_the_search_result(wrong_model):
    report = build("dp+refine", budget=0.0)
    assert "pytest_slowrelu" in backends(report)
    assert report.data["refinement"]["evaluated"] == 0 and report.data["refinement"]["changes"] == []


def test_unknown_search_is_an_error():
    with pytest.raises(tessera.TesseraConfigError, match="dp, dp\\+refine"):
        transform.PassContext(config={"collage.search": "dp+magic"})
    with pytest.raises(tessera.TesseraConfigError, match=">= 0"):
        transform.PassContext(config={"collage.refine_budget_s": -1.0})
