"""ONNX models that once crashed the importer (tests/data/onnx/fuzz/*.onnx, written by
make_crashers.py there) are clear errors now, from Python and from the CLI."""
import pathlib
import subprocess

import pytest

import tessera

CRASHERS = pathlib.Path(__file__).resolve().parents[1] / "data" / "onnx" / "fuzz"
EXPECTED = {
    "split_rank0.onnx": (tessera.TesseraValueError, "scalar has no axes"),
    "gather_rank0.onnx": (tessera.TesseraValueError, "scalar has no axes"),
    "conv_stride0_same.onnx": (tessera.TesseraError, "strides"),
    "maxpool_stride0_same.onnx": (tessera.TesseraError, "strides"),
    "avgpool_stride0_same.onnx": (tessera.TesseraError, "strides"),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_crasher_is_a_clear_error(name):
    cls, text = EXPECTED[name]
    with pytest.raises(cls, match=text):
        tessera.frontend.from_onnx(str(CRASHERS / name))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_cli_reports_the_crasher(tessera_cli, name):
    r = subprocess.run([tessera_cli, "opt", str(CRASHERS / name)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert EXPECTED[name][1] in r.stderr
