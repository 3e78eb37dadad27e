"""The CLI says what it is: --version, targets, and --log-level on every command."""
import subprocess

import pytest

import tessera
from tessera import _runtime

MODEL = "def @main(%x: Tensor[(2, 3), float32]) {\n  nn.relu(add(%x, %x))\n}\n"


def run(cli, *args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("flag", ["--version", "version"])
def test_version_names_the_version_and_backends(tessera_cli, flag):
    res = run(tessera_cli, flag)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == f"tessera {tessera.__version__}"
    backends = lines[1].removeprefix("backends: ").split(", ")
    assert backends == sorted(t["name"] for t in tessera.list_targets())
    assert lines[2].startswith("ONNX import: ")


def test_version_takes_no_arguments(tessera_cli):
    res = run(tessera_cli, "--version", "extra")
    assert res.returncode == 2 and "takes no arguments, got 'extra'" in res.stderr


def test_package_and_library_versions_agree():
    assert _runtime.version() == tessera.__version__


def test_targets_lists_every_backend_with_its_options(tessera_cli):
    res = run(tessera_cli, "targets")
    assert res.returncode == 0, res.stderr
    for target in tessera.list_targets():
        assert f"{target['name']}: {target['description']}" in res.stdout
        for name, kind, _default, _text in target["options"]:
            assert f"  -{name} ({kind}, default " in res.stdout
    assert run(tessera_cli, "targets", "extra").returncode == 2


@pytest.mark.parametrize("where", ["before", "after", "equals"])
def test_log_level_works_before_or_after_the_command(tessera_cli, tmp_path, where):
    model = tmp_path / "m.txt"
    model.write_text(MODEL)
    out = str(tmp_path / "m.tsx")
    args = {"before": ["--log-level", "debug", "compile", str(model), "-o", out],
            "after": ["compile", str(model), "-o", out, "--log-level", "debug"],
            "equals": ["compile", str(model), "-o", out, "--log-level=debug"]}[where]
    res = run(tessera_cli, *args)
    assert res.returncode == 0, res.stderr
    assert "[tessera debug] FuseOps:" in res.stderr
    # Every pass that ran, with its time, and what the native compiler did.
    assert "[tessera debug] pass InferType: " in res.stderr
    assert "[tessera debug] pass FuseOps: " in res.stderr
    assert "[tessera debug] native: " in res.stderr
    quiet = run(tessera_cli, "compile", str(model), "-o", out)
    assert "[tessera debug]" not in quiet.stderr


def test_unknown_log_level_is_a_usage_error(tessera_cli):
    res = run(tessera_cli, "--log-level", "loud", "targets")
    assert res.returncode == 2
    assert "unknown log level 'loud' (valid: trace, debug, info, warn, error, off)" in res.stderr
    assert run(tessera_cli, "targets", "--log-level").returncode == 2


def test_set_log_level_from_python(capfd):
    mod = tessera.parse(MODEL)
    try:
        tessera.set_log_level("debug")
        tessera.build(mod, "native -num_threads=1")
        assert "[tessera debug] FuseOps:" in capfd.readouterr().err
    finally:
        tessera.set_log_level("warn")
    tessera.build(mod, "native -num_threads=1")
    assert "[tessera debug]" not in capfd.readouterr().err
    with pytest.raises(tessera.TesseraValueError, match="unknown log level 'loud'"):
        tessera.set_log_level("loud")


BAD = ("def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(4), float32]) {\n"
       "  nn.relu(add(%x, %y))\n}\n")
BROADCAST = "op 'add': shapes [2, 3] and [4] cannot be broadcast together"


def test_crash_reproducer_of_opt_replays_the_failing_pass_with_its_options(tessera_cli, tmp_path):
    model, repro = tmp_path / "bad.txt", tmp_path / "repro.txt"
    model.write_text(BAD)
    res = run(tessera_cli, "opt", str(model), "--passes", "InferType,FuseOps{max_depth=3}",
              "--disable-pass", "InferType", "--config", "collage.native_max_depth=5",
              "--crash-reproducer", str(repro))
    assert res.returncode == 1 and BROADCAST in res.stderr
    assert f"wrote a crash reproducer to {repro}" in res.stderr
    text = repro.read_text()
    assert "pass FuseOps failed" in text and BROADCAST in text
    args = [line.split(": ", 1)[1] for line in text.splitlines()
            if line.startswith("// tessera-reproducer-arg: ")]
    assert args == ["--passes", "FuseOps{max_depth=3}", "--disable-pass", "InferType",
                    "--config", "collage.native_max_depth=5"]
    # The module the pass was given parses as it is, and `opt FILE` replays the failure.
    assert tessera.parse(text).astext() == tessera.parse(BAD).astext()
    again = run(tessera_cli, "opt", str(repro))
    assert again.returncode == 1
    assert "replaying the crash reproducer: --passes FuseOps{max_depth=3}" in again.stderr
    assert BROADCAST in again.stderr
    # --passes given on the command line wins over the recorded one.
    assert run(tessera_cli, "opt", str(repro), "--passes", "FoldConstant").returncode == 1


def test_crash_reproducer_of_compile(tessera_cli, tmp_path):
    model, repro = tmp_path / "bad.txt", tmp_path / "repro.txt"
    model.write_text(BAD)
    res = run(tessera_cli, "compile", str(model), "-o", str(tmp_path / "x.tsx"),
              "--crash-reproducer", str(repro))
    assert res.returncode == 1 and f"wrote a crash reproducer to {repro}" in res.stderr
    again = run(tessera_cli, "opt", str(repro))
    assert again.returncode == 1 and BROADCAST in again.stderr


def test_no_reproducer_when_the_failure_is_not_a_pass_says_so(tessera_cli, tmp_path):
    model, repro = tmp_path / "m.txt", tmp_path / "repro.txt"
    model.write_text(MODEL)
    # A library target without partitions fails before any pass runs.
    res = run(tessera_cli, "compile", str(model), "-o", str(tmp_path / "m.tsx"), "--target",
              "native", "--target", "dnnl", "--crash-reproducer", str(repro))
    assert res.returncode == 1 and not repro.exists()
    assert "no crash reproducer written: the failure is not in a pass" in res.stderr


def test_no_reproducer_without_a_failure_or_the_flag(tessera_cli, tmp_path):
    model, repro = tmp_path / "m.txt", tmp_path / "repro.txt"
    model.write_text(MODEL)
    res = run(tessera_cli, "opt", str(model), "--passes", "FuseOps", "--crash-reproducer", str(repro))
    assert res.returncode == 0, res.stderr
    assert not repro.exists()


def test_viz_draws_kernels_and_partitions(tessera_cli, tmp_path):
    model = tmp_path / "m.txt"
    model.write_text(
        "def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {\n"
        "  nn.relu(nn.conv2d(%x, %w, padding=[1, 1]))\n}\n")
    dot, svg, html = (tmp_path / f"g.{ext}" for ext in ("dot", "svg", "html"))
    res = run(tessera_cli, "viz", str(model), "-o", str(dot))
    assert res.returncode == 0, res.stderr
    assert 'label="native: fused"' in dot.read_text() and 'label="nn.conv2d"' in dot.read_text()
    if "dnnl" in {t["name"] for t in tessera.list_targets()}:
        res = run(tessera_cli, "viz", str(model), "-o", str(dot), "--target", "native -compiler=dnnl")
        assert res.returncode == 0, res.stderr
        assert 'label="dnnl @' in dot.read_text()
    # Graphviz renders the picture (set-up installs it).
    assert run(tessera_cli, "viz", str(model), "-o", str(svg)).returncode == 0
    assert svg.read_text().startswith("<svg")
    assert run(tessera_cli, "viz", str(model), "-o", str(html)).returncode == 0
    assert "<svg" in html.read_text() and html.read_text().startswith("<!DOCTYPE html>")
    # The model as loaded, without the build's fusion.
    assert run(tessera_cli, "viz", str(model), "-o", str(dot), "--passes", "").returncode == 0
    assert "cluster" not in dot.read_text()
    both = run(tessera_cli, "viz", str(model), "-o", str(dot), "--passes", "", "--target", "native")
    assert both.returncode == 1 and "give one of them" in both.stderr
    bad = run(tessera_cli, "viz", str(model), "-o", str(tmp_path / "g.png"))
    assert bad.returncode == 1 and "write a .svg, .html or .dot file" in bad.stderr
    # What viz cannot draw is an error, not ignored: Collage's choice is in its report.
    for extra in (["--target", "native", "--target", "dnnl"], ["--config", "collage.enable=true"]):
        res = run(tessera_cli, "viz", str(model), "-o", str(dot), *extra)
        assert res.returncode == 1 and "collage" in res.stderr.lower(), res.stderr


def test_opt_emits_dot(tessera_cli, tmp_path):
    model = tmp_path / "m.txt"
    model.write_text(MODEL)
    res = run(tessera_cli, "opt", str(model), "--passes", "FuseOps", "--emit", "dot")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("digraph module {") and 'label="native: fused"' in res.stdout
