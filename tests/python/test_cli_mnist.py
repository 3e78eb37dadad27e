"""The MNIST CNN of the Collage design doc through the CLI, checked against NumPy."""
import json
import subprocess
import sys

import numpy as np

from conftest import ROOT

sys.path.insert(0, str(ROOT / "examples" / "mnist"))
import mnist  # noqa: E402


def run(cli, *args, stdin=None):
    return subprocess.run([cli, *args], input=stdin, capture_output=True, text=True, timeout=300)


def write_model(tmp_path, seed=0):
    model = tmp_path / "mnist.txt"
    model.write_text(mnist.MODEL_TEXT)
    inputs = mnist.make_inputs(seed)
    args = []
    for name, value in inputs.items():
        path = tmp_path / f"{name}.npy"
        np.save(path, value)
        args += ["--input", f"{name}={path}"]
    return model, inputs, args


def test_opt_infers_output_type(tessera_cli, tmp_path):
    model, _, _ = write_model(tmp_path)
    res = run(tessera_cli, "opt", str(model))
    assert res.returncode == 0, res.stderr
    assert "-> Tensor[(1, 10), float32]" in res.stdout


def test_run_matches_numpy(tessera_cli, tmp_path):
    model, inputs, args = write_model(tmp_path, seed=3)
    out = tmp_path / "out.npy"
    res = run(tessera_cli, "run", str(model), *args, "--output", str(out))
    assert res.returncode == 0, res.stderr
    got = np.load(out)
    want = mnist.reference(inputs)
    assert got.shape == (1, 10) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_opt_json_round_trips_through_run(tessera_cli, tmp_path):
    model, inputs, args = write_model(tmp_path)
    res = run(tessera_cli, "opt", str(model), "--emit", "json")
    assert res.returncode == 0, res.stderr
    json.loads(res.stdout)
    jpath = tmp_path / "mnist.json"
    jpath.write_text(res.stdout)
    out = tmp_path / "out.npy"
    res = run(tessera_cli, "run", str(jpath), *args, "--output", str(out))
    assert res.returncode == 0, res.stderr
    np.testing.assert_allclose(np.load(out), mnist.reference(inputs), rtol=1e-4, atol=1e-5)


def test_opt_reads_stdin_and_reprints_stably(tessera_cli, tmp_path):
    first = run(tessera_cli, "opt", "-", stdin=mnist.MODEL_TEXT)
    assert first.returncode == 0, first.stderr
    second = run(tessera_cli, "opt", "-", stdin=first.stdout)
    assert second.returncode == 0, second.stderr
    assert first.stdout == second.stdout


def test_errors_are_reported_not_crashes(tessera_cli, tmp_path):
    model, _, args = write_model(tmp_path)
    # Missing input: names the missing parameter.
    res = run(tessera_cli, "run", str(model), *args[:-2])
    assert res.returncode == 1 and "b2" in res.stderr
    # Wrong shape: names the input and both shapes.
    bad = tmp_path / "bad.npy"
    np.save(bad, np.zeros((1, 1, 27, 28), np.float32))
    others = [f"{n}={tmp_path / n}.npy" for n in mnist.SHAPES if n != "x"]
    others = [arg for spec in others for arg in ("--input", spec)]
    res = run(tessera_cli, "run", str(model), *others, "--input", f"x={bad}")
    assert res.returncode == 1 and "'x'" in res.stderr and "27" in res.stderr
    # Parse error: line and column.
    broken = tmp_path / "broken.txt"
    broken.write_text(mnist.MODEL_TEXT.replace("nn.relu(%2)", "nn.relu(%2"))
    res = run(tessera_cli, "opt", str(broken))
    assert res.returncode == 1 and "parse error" in res.stderr and ":" in res.stderr
    # Unknown op.
    res = run(tessera_cli, "opt", "-", stdin=mnist.MODEL_TEXT.replace("nn.relu", "nn.frob"))
    assert res.returncode == 1 and "nn.frob" in res.stderr
    # Missing file, unknown option, unknown command.
    assert run(tessera_cli, "opt", str(tmp_path / "nope.txt")).returncode == 1
    bogus = run(tessera_cli, "opt", str(model), "--bogus")  # a wrong command line: 2
    assert bogus.returncode == 2 and "unknown option '--bogus' for 'opt'" in bogus.stderr
    assert run(tessera_cli, "compile", str(model), "-o").returncode == 2  # -o needs a value
    assert run(tessera_cli, "frobnicate").returncode == 2
