"""Collage measures on a Dask cluster (collage.runner = "dask://HOST:PORT", started here
as a LocalCluster of worker processes): the costs match local measurement within noise,
the CLI takes --runner, crashing candidates are invalid, workers with another machine
fingerprint are not used, and a worker killed mid-task never hangs the search."""
import subprocess

import numpy as np
import pytest

import tessera
from helpers import COLLAGE_CHAIN
from tessera import collage, transform
from tessera.pattern import is_op, wildcard

distributed = pytest.importorskip("distributed")

FEEDS = {"x": np.random.default_rng(0).uniform(-1, 1, (8, 16)).astype("float32"),
         "w": np.random.default_rng(1).uniform(-1, 1, (32, 16)).astype("float32")}


def cluster(**kwargs):
    return distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                    dashboard_address=None, **kwargs)


@pytest.fixture(scope="module")
def client():
    with cluster() as c, distributed.Client(c) as cl:
        yield cl


def build(runner, targets=("native -num_threads=1",), **config):
    base = {"collage.enable": True, "collage.cost_db": "", "collage.runner": runner,
            "collage.native_max_depth": 2, "collage.measure_timeout_s": 20.0}
    base.update(config)
    mod = tessera.parse(COLLAGE_CHAIN)
    with transform.PassContext(opt_level=3, config=base):
        ex = tessera.build(mod, target=list(targets))
    np.testing.assert_allclose(ex(**FEEDS), tessera.run(mod, **FEEDS), rtol=1e-4, atol=1e-5)
    return ex.collage_report().data


def test_dask_measures_the_same_costs_as_local(client):
    runner = collage.DaskRunner(client)
    assert runner.startswith("dask://") and collage.DaskRunner(client.scheduler.address) == runner
    local = build("local", **{"collage.guard": False})
    remote = build(runner)
    assert remote["measured"] == local["measured"] > 0
    # (Timings are compared in bench/, not here: a loaded machine moves them by 2x.)
    assert remote["estimated_total_us"] > 0 and local["estimated_total_us"] > 0
    assert remote["guard"]["chosen"] in remote["guard"]["latency_ms"]
    est = collage.MeasuringCostEstimator(runner=runner, repeat=3)
    assert est.name == "measure"
    # Passed to the pass, the estimator measures on the cluster too.
    with transform.PassContext(opt_level=3, config={"collage.cost_db": ""}):
        out = collage.CollagePartition("native -num_threads=1", est)(tessera.parse(COLLAGE_CHAIN))
    passed = collage.CollageReport(out.attrs["collage.report"]).data
    assert passed["measure"]["runner"] == runner and passed["measured"] > 0
    with pytest.raises(tessera.TesseraConfigError, match="dask://HOST:PORT"):
        collage.MeasuringCostEstimator(runner="dask://nowhere")
    with pytest.raises(ValueError, match="HOST:PORT"):
        collage.DaskRunner("local")
    assert remote["measure"]["runner"] == runner and local["measure"]["runner"] == "local"


def test_cli_runner(client, tessera_cli, tmp_path):
    model = tmp_path / "chain.txt"
    model.write_text(COLLAGE_CHAIN)
    r = subprocess.run([tessera_cli, "compile", str(model), "-o", str(tmp_path / "m.tsx"), "--collage",
                        "--runner", collage.DaskRunner(client), "--config", "collage.cost_db=",
                        "--target", "native -num_threads=1"], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert tessera.load(tmp_path / "m.tsx").collage_report().data["measured"] > 0
    r = subprocess.run([tessera_cli, "compile", str(model), "-o", str(tmp_path / "m.tsx"),
                        "--runner", "local"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "add --collage" in r.stderr


def c_backend(name, body):
    def source(partition, c_name):
        return ("#include <signal.h>\n#include <unistd.h>\n"
                f"int32_t {c_name}(void* const* b, const TsKernelEnv* e) {{\n  {body}\n  return 0;\n}}\n")
    tessera.backend.register_external(name, [("relu", is_op("nn.relu")(wildcard()))],
                                      compile_with=source)
    return name


def rejected(report, spec):
    return [r["reason"] for f in report["functions"] for r in f["rejected"] if r["spec"] == spec]


def test_crashing_candidates_are_invalid_on_the_cluster(client):
    name = c_backend("pytest_dask_crash", "*(volatile int*)0 = 1;")
    report = build(collage.DaskRunner(client), ("native -num_threads=1", name))
    reasons = rejected(report, name)
    assert reasons and all("crashed the measurement worker on" in r for r in reasons), reasons


def test_a_worker_killed_mid_task_never_hangs(client):
    # The kernel kills the Dask worker running its measurement: Dask retries the task
    # elsewhere until it gives up, and the candidate is invalid.
    name = c_backend("pytest_dask_kill", "kill(getppid(), SIGKILL); _exit(1);")
    try:
        report = build(collage.DaskRunner(client), ("native -num_threads=1", name),
                       **{"collage.guard": False})
    except tessera.TesseraValueError as e:
        # Measurements running on a worker when it is killed die with it: when Dask gives up
        # on every candidate of some node, the build fails with that reason, promptly.
        assert "Dask could not measure it" in str(e), e
        return
    reasons = rejected(report, name)
    assert reasons and all("Dask could not measure it" in r or "crashed" in r for r in reasons), reasons


def test_workers_with_another_fingerprint_are_not_used():
    # Workers labelled as another kind of machine are not sent this machine's candidates.
    with cluster(env={"TESSERA_MACHINE_TAG": "elsewhere"}) as c, distributed.Client(c) as cl:
        with pytest.raises(tessera.TesseraValueError, match="fingerprint"):
            build(collage.DaskRunner(cl), **{"collage.guard": False})


def test_unreachable_scheduler_is_a_clear_error():
    with pytest.raises(tessera.TesseraIOError, match="cannot use the Dask cluster"):
        build("dask://127.0.0.1:9", **{"collage.guard": False, "collage.launch_penalty_us": 0.0})
