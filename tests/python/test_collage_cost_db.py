"""Collage's cost database from Python and the CLI: a warm second build measures nothing,
another model reuses shared kernels, the cost model is part of the key, two concurrent
`tessera compile --collage` runs agree, damaged files are rebuilt, and the
`tessera collage db` commands and collage.CostDatabase work."""
import json
import subprocess

import numpy as np
import pytest

import tessera
from helpers import COLLAGE_CHAIN
from tessera import collage, transform

CHAIN = COLLAGE_CHAIN

# Shares the dense + relu layer with CHAIN (same shapes), ends differently.
OTHER = """
def @main(%x: Tensor[(8, 16), float32], %w: Tensor[(32, 16), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = nn.relu(%0);
  %2 = exp(%1);
  sum(%2, axis=[1])
}
"""

HAVE_DNNL = any(t["name"] == "dnnl" for t in tessera.list_targets())
TARGETS = ["native -num_threads=1"] + (["dnnl"] if HAVE_DNNL else [])


def inputs():
    rng = np.random.default_rng(0)
    return {"x": rng.uniform(-1, 1, (8, 16)).astype("float32"),
            "w": rng.uniform(-1, 1, (32, 16)).astype("float32")}


def build(text, db, **config):
    base = {"collage.enable": True, "collage.cost_db": str(db), "collage.native_max_depth": 3,
            "collage.measure_repeat": 3}
    base.update(config)
    with transform.PassContext(opt_level=3, config=base):
        ex = tessera.build(tessera.parse(text), target=TARGETS)
    return ex, ex.collage_report().data


def plan(report):
    return [(k["backend"], k["indexes"]) for f in report["functions"] for k in f["kernels"]]


def test_second_build_measures_nothing_and_other_models_reuse_kernels(tmp_path):
    db = tmp_path / "costs.db"
    ex1, first = build(CHAIN, db)
    assert first["cost_db"] == str(db)
    assert first["measured"] == first["estimated"] > 0 and first["from_cost_db"] == 0
    assert first["guard"]["from_cost_db"] == []

    ex2, second = build(CHAIN, db)
    assert second["measured"] == 0 and second["from_cost_db"] == first["estimated"]
    assert sorted(second["guard"]["from_cost_db"]) == sorted(first["guard"]["latency_ms"])
    assert second["guard"]["latency_ms"] == first["guard"]["latency_ms"]
    assert plan(second) == plan(first) and second["guard"]["chosen"] == first["guard"]["chosen"]
    want = tessera.run(tessera.parse(CHAIN), **inputs())
    np.testing.assert_allclose(ex2(**inputs()), want, rtol=1e-4, atol=1e-5)
    assert "from the cost database" in str(ex2.collage_report())

    _, other = build(OTHER, db)
    assert 0 < other["from_cost_db"] < other["estimated"]  # the shared layer's kernels

    # The cost model is part of the key: another percentile measures again.
    _, p90 = build(CHAIN, db, **{"collage.measure_percentile": 90.0})
    assert p90["measured"] == p90["estimated"] and p90["from_cost_db"] == 0

    records = collage.CostDatabase(str(db)).records()
    kinds = {r["kind"] for r in records}
    assert kinds == {"kernel", "program", "launch"}
    assert all(r["repeats"] > 0 and r["spread"] is not None
               for r in records if r["kind"] == "kernel" and np.isfinite(r["cost"]))


def test_cli_quoted_empty_value_turns_the_database_off(tessera_cli, tmp_path):
    model = tmp_path / "chain.txt"
    model.write_text(CHAIN)
    r = subprocess.run([tessera_cli, "compile", str(model), "-o", str(tmp_path / "m.tsx"), "--collage",
                        "--config", 'collage.cost_db=""', "--config", "collage.guard=false",
                        "--target", "native -num_threads=1"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert tessera.load(tmp_path / "m.tsx").collage_report().data["cost_db"] is None
    assert not (tmp_path / '""').exists()


def test_no_database_and_bad_paths(tmp_path):
    _, report = build(CHAIN, "", **{"collage.guard": False})
    assert report["cost_db"] is None and report["from_cost_db"] == 0
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(tessera.TesseraIOError, match="cost database"):  # a path the user gave must work
        build(CHAIN, tmp_path / "file.txt" / "costs.db")


def test_damaged_database_is_rebuilt_and_other_files_are_left_alone(tmp_path):
    db = tmp_path / "costs.db"
    db.write_bytes(b"SQLite format 3\0" + b"garbage" * 600)
    _, report = build(CHAIN, db, **{"collage.guard": False})
    assert report["measured"] > 0
    assert (tmp_path / "costs.db.corrupt").exists()
    assert len(collage.CostDatabase(db)) > 0          # os.PathLike works too
    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"not": "a database"}\n')
    with pytest.raises(tessera.TesseraIOError, match="is not a cost database"):
        collage.CostDatabase(notes)
    assert notes.read_text() == '{"not": "a database"}\n'
    assert not (tmp_path / "notes.jsonl.corrupt").exists()


def test_cost_database_api(tmp_path):
    db_path = tmp_path / "costs.db"
    build(CHAIN, db_path, **{"collage.guard": False})
    db = collage.CostDatabase(str(db_path))
    assert db.path == str(db_path) and repr(db) == f"CostDatabase('{db_path}')"
    stats = db.stats()
    assert stats["records"] == len(db) > 0 and stats["bytes"] > 0
    assert sum(stats["by_kind"].values()) == len(db)
    here = collage.fingerprint_hash(collage.machine_fingerprint(["native -num_threads=1"]))
    assert here in stats["by_fingerprint"]
    assert "threads: 1" in stats["by_fingerprint"][here]["text"]
    # The native kernels' revision is part of it: costs timed before a code generator
    # change are not reused after it.
    assert "codegen-r" in stats["by_fingerprint"][here]["text"]
    n = db.export(str(tmp_path / "costs.jsonl"))
    assert n == len(db)
    line = json.loads((tmp_path / "costs.jsonl").read_text().splitlines()[0])
    assert {"hash", "target", "fingerprint", "cost_s", "workload"} <= set(line)
    copy = collage.CostDatabase(str(tmp_path / "copy.db"))
    assert copy.import_(str(tmp_path / "costs.jsonl")) == n
    assert copy.import_(str(tmp_path / "costs.jsonl")) == 0
    assert db.clear() == n and len(db) == 0
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    with pytest.raises(tessera.TesseraParseError, match="bad.jsonl:1"):
        copy.import_(str(tmp_path / "bad.jsonl"))


def test_cli_db_commands(tessera_cli, tmp_path):
    db = tmp_path / "costs.db"
    build(CHAIN, db, **{"collage.guard": False})

    def cli(*args):
        r = subprocess.run([tessera_cli, "collage", "db", *args, "--db", str(db)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        return r.stdout

    stats = cli("stats")
    assert f"cost database: {db}" in stats and "(this machine)" in stats and "kind kernel" in stats
    listing = cli("list", "--kind", "kernel")
    kernels = [r for r in collage.CostDatabase(str(db)).records() if r["kind"] == "kernel"]
    assert listing.count("\n") == len(kernels) > 0
    assert "native:" in listing
    assert "wrote" in cli("export", str(tmp_path / "out.jsonl"))
    assert "removed" in cli("clear")
    assert "added" in cli("import", str(tmp_path / "out.jsonl"))
    r = subprocess.run([tessera_cli, "collage", "db", "frobnicate"], capture_output=True, text=True)
    assert r.returncode == 2 and "expected stats, list" in r.stderr
    r = subprocess.run([tessera_cli, "collage", "db", "list", "--kind", "bogus", "--db", str(db)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "kernel, program or launch" in r.stderr
    missing = tmp_path / "missing.db"
    r = subprocess.run([tessera_cli, "collage", "db", "stats", "--db", str(missing)],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "no cost database" in r.stderr and not missing.exists()
    r = subprocess.run([tessera_cli, "collage", "db", "export"], capture_output=True, text=True)
    assert r.returncode == 2 and "expected one FILE" in r.stderr


def test_two_concurrent_compiles_agree(tessera_cli, tmp_path):
    """Two `tessera compile --collage` at once on one database: no 'database is locked',
    identical partitions (the first measurement stored wins in both)."""
    model = tmp_path / "chain.txt"
    model.write_text(CHAIN)
    db = tmp_path / "costs.db"
    procs = []
    for i in range(2):
        cmd = [tessera_cli, "compile", str(model), "-o", str(tmp_path / f"m{i}.tsx"), "--collage",
               "--config", f"collage.cost_db={db}", "--config", "collage.native_max_depth=3",
               "--config", "collage.measure_repeat=3"]
        for t in TARGETS:
            cmd += ["--target", t]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
        assert "locked" not in err
    reports = [tessera.load(tmp_path / f"m{i}.tsx").collage_report().data for i in range(2)]
    assert plan(reports[0]) == plan(reports[1])
    assert reports[0]["guard"]["chosen"] == reports[1]["guard"]["chosen"]
    assert reports[0]["guard"]["latency_ms"] == reports[1]["guard"]["latency_ms"]
