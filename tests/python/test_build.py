"""tessera.build / Executable / tessera.load: native builds against the interpreter, the
PassContext's say in the build, save and load in a fresh process, the CLI's compile and
run, and errors for bad targets and inputs."""
import os
import subprocess
import sys

import tempfile

import numpy as np
import pytest

import tessera
from tessera import op, transform
from tessera.op import nn

RNG = np.random.default_rng(0)


def randn(*shape):
    return RNG.standard_normal(shape).astype("float32")


def conv_block(shape=(1, 3, 9, 9), oc=5):
    x = tessera.var("x", shape=shape)
    w = tessera.const(randn(oc, shape[1], 3, 3))
    b = tessera.const(randn(oc))
    y = nn.relu(nn.bias_add(nn.conv2d(x, w, padding=(1, 1), channels=oc, kernel_size=(3, 3)), b))
    return tessera.IRModule.from_expr(tessera.Function([x], y))


@pytest.mark.parametrize("shape", [(1, 3, 9, 9), (1, 4, 8, 8)])
def test_native_conv_block_matches_interpreter_in_one_kernel(shape):
    mod = conv_block(shape)
    x = randn(*shape)
    ex = tessera.build(mod, target="native")
    np.testing.assert_allclose(ex.run(x=x), tessera.run(mod, x=x), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ex(x), ex.run(x=x))  # positional and keyword inputs
    assert ex.kernels == ["fused_nn_conv2d_nn_bias_add_nn_relu"]
    assert ex.input_names == ["x"]
    assert "fused_nn_conv2d_nn_bias_add_nn_relu" in ex.source()


def test_dense_gelu_softmax_and_tuple_results():
    x = tessera.var("x", shape=(3, 17))
    h = nn.gelu(nn.bias_add(nn.dense(x, tessera.const(randn(9, 17))), tessera.const(randn(9)),
                            axis=-1))
    s = nn.softmax(h)
    mod = tessera.IRModule.from_expr(tessera.Function([x], tessera.Tuple([h, s])))
    xi = randn(3, 17)
    got = tessera.build(mod).run(x=xi)
    want = tessera.run(mod, x=xi)
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_pass_context_shapes_the_build():
    x = tessera.var("x", shape=(4, 8))
    mod = tessera.IRModule.from_expr(tessera.Function([x], nn.relu(op.add(op.exp(x), x))))
    assert len(tessera.build(mod).kernels) == 1
    with transform.PassContext(opt_level=0):
        assert len(tessera.build(mod).kernels) == 3
    with transform.PassContext(disabled_pass=["FuseOps"]):
        assert len(tessera.build(mod).kernels) == 3
    seen = []

    @transform.module_pass(opt_level=0, name="Watch")
    def watch(m, ctx):
        seen.append(ctx.opt_level)
        return m

    class Record(tessera.instrument.PassInstrument):
        def run_before_pass(self, m, info):
            seen.append(info.name)

    with transform.PassContext(opt_level=3, instruments=[Record()]):
        tessera.build(mod)
    assert "FuseOps" in seen and "LowerToTIR" in seen


def test_interp_target_and_benchmark_profile_memory_plan():
    mod = conv_block()
    x = randn(1, 3, 9, 9)
    ex = tessera.build(mod, target="interp")
    np.testing.assert_allclose(ex.run(x=x), tessera.run(mod, x=x), rtol=1e-5, atol=1e-5)
    assert ex.source() is None
    native = tessera.build(mod, target="native -num_threads=1")
    assert native.num_threads == 1
    with tempfile.TemporaryDirectory() as d:  # the target's thread count is saved with it
        native.save(d + "/m.tsx")
        assert tessera.load(d + "/m.tsx").num_threads == 1
        assert tessera.load(d + "/m.tsx", num_threads=2).num_threads == 2
    stats = native.benchmark(x=x, warmup=1, repeat=3)
    assert stats["repeat"] == 3 and 0 < stats["min_ms"] <= stats["median_ms"] <= stats["p90_ms"]
    prof = native.profile(x=x, repeat=2)
    assert prof["rows"][0]["symbol"] == native.kernels[0]
    assert prof["rows"][0]["backend"] == "native" and prof["rows"][0]["calls"] == 2
    assert "Kernel" in prof["table"]
    assert set(native.memory_plan) >= {"arena_bytes", "num_storages"}
    names = [t["name"] for t in tessera.list_targets()]
    assert "native" in names and "interp" in names


def test_saved_executable_runs_identically_in_a_fresh_process(tmp_path):
    mod = conv_block()
    x = randn(1, 3, 9, 9)
    ex = tessera.build(mod)
    path = tmp_path / "model.tsx"
    ex.save(path)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "want.npy", ex(x=x))
    script = (
        "import sys, numpy as np, tessera\n"
        "d = sys.argv[1]\n"
        "ex = tessera.load(d + '/model.tsx', num_threads=1)\n"
        "got = ex(x=np.load(d + '/x.npy'))\n"
        "sys.exit(0 if np.array_equal(got, np.load(d + '/want.npy')) else 3)\n")
    env = dict(os.environ)
    result = subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_cli_compile_then_run_in_a_fresh_process(tmp_path, tessera_cli):
    mod = conv_block()
    (tmp_path / "m.txt").write_text(mod.astext())
    x = randn(1, 3, 9, 9)
    np.save(tmp_path / "x.npy", x)
    subprocess.run([tessera_cli, "compile", str(tmp_path / "m.txt"), "-o", str(tmp_path / "m.tsx")],
                   check=True, capture_output=True)
    subprocess.run([tessera_cli, "run", str(tmp_path / "m.tsx"), "--input", f"x={tmp_path}/x.npy",
                    "--output", str(tmp_path / "y.npy")], check=True, capture_output=True)
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), tessera.run(mod, x=x), rtol=1e-5,
                               atol=1e-5)


def test_errors_name_the_problem(tmp_path):
    mod = conv_block()
    with pytest.raises(tessera.TesseraError, match="unknown target kind 'gpu'|gpu"):
        tessera.build(mod, target="gpu")
    with pytest.raises(tessera.TesseraError, match="num_threads"):
        tessera.build(mod, target="native -num_threads=many")
    with pytest.raises(tessera.TesseraError, match="bogus"):
        tessera.build(mod, target="native -bogus=1")
    ex = tessera.build(mod)
    with pytest.raises(tessera.TesseraError, match="'x'"):
        ex.run(x=randn(1, 3, 9, 8))
    with pytest.raises(tessera.TesseraError, match="'y'"):
        ex.run(x=randn(1, 3, 9, 9), y=randn(1))
    with pytest.raises(TypeError):
        ex.run(randn(1, 3, 9, 9), x=randn(1, 3, 9, 9))
    with pytest.raises(tessera.TesseraError):
        tessera.load(tmp_path / "missing.tsx")
    (tmp_path / "bad.tsx").write_bytes(b"TESSERA-EXEC garbage")
    with pytest.raises(tessera.TesseraParseError):
        tessera.load(tmp_path / "bad.tsx")


def test_paths_and_targets_must_have_the_right_types(tmp_path):
    ex = tessera.build(conv_block())
    with pytest.raises(TypeError):
        ex.save(None)
    with pytest.raises(TypeError):
        ex.save(b"bytes.tsx")
    with pytest.raises(TypeError, match="target must be a string"):
        tessera.build(conv_block(), 5)
    ex.save(tmp_path / "ok.tsx")  # os.PathLike works
    assert tessera.load(tmp_path / "ok.tsx").input_names == ["x"]


def test_cli_checks_threads_and_empty_targets(tmp_path, tessera_cli):
    (tmp_path / "m.txt").write_text(conv_block().astext())
    np.save(tmp_path / "x.npy", randn(1, 3, 9, 9))
    base = [tessera_cli, "run", str(tmp_path / "m.txt"), "--input", f"x={tmp_path}/x.npy"]
    bad_threads = subprocess.run(base + ["--threads", "abc"], capture_output=True, text=True)
    assert bad_threads.returncode == 1 and "--threads expects a count" in bad_threads.stderr
    empty = subprocess.run(base + ["--target", ""], capture_output=True, text=True)
    assert empty.returncode == 1 and "empty target string" in empty.stderr


def test_cli_says_when_a_compiled_file_is_given_as_a_module(tmp_path, tessera_cli):
    tessera.build(conv_block()).save(tmp_path / "m.tsx")
    for command in (["opt"], ["compile", "-o", str(tmp_path / "again.tsx")]):
        result = subprocess.run([tessera_cli] + command[:1] + [str(tmp_path / "m.tsx")] + command[1:],
                                capture_output=True, text=True)
        assert result.returncode == 1
        assert "is a compiled executable, not a module" in result.stderr


CALL_TIR_MODULE = """
def @main(%x: Tensor[(10), float32]) {
  %0 = call_tir(@add_one, (%x,), Tensor[(10), float32]);
  nn.relu(%0)
}
primfn @add_one(%A: Buffer[(10), float32]) -> (%B: Buffer[(10), float32]) {
  for %i: int32 in 0 +: 10 parallel {
    block "compute"(%vi: int32 in 0 +: 10 spatial = %i) reads(%A[%vi]) writes(%B[%vi]) {
      %B[%vi] = %A[%vi] + 1f;
    }
  }
}
"""


@pytest.mark.parametrize("target", ["native", "interp"])
def test_hand_written_call_tir_modules_build(target):
    # FuseOps leaves call_tir in place (its @PrimFunc must stay a global), so modules
    # mixing graph ops and hand-written PrimFuncs build and run.
    mod = tessera.parse(CALL_TIR_MODULE)
    x = np.arange(-5, 5, dtype="float32")
    ex = tessera.build(mod, target=target)
    np.testing.assert_array_equal(ex.run(x=x), np.maximum(x + 1, 0))


def test_exact_gelu_keeps_its_relative_precision_for_negative_inputs():
    """Native exact GELU is x * Phi(x) with Phi from erfc: where Phi(x) is tiny (x << 0),
    1 + erf(x / sqrt 2) would cancel to a few bits or to 0; the interpreter's reference
    (erfc in double) and the native kernel agree closely over the whole range (float32
    rounds x^2 / 2 before the exp: about 4e-6 relative at x = -13)."""
    x = np.concatenate([np.linspace(-12, 12, 2401), [0.0, -0.0, 1e-30, -1e-30]]).astype("float32")
    xv = tessera.var("x", shape=x.shape)
    mod = tessera.IRModule.from_expr(tessera.Function([xv], nn.gelu(xv)))
    want = tessera.run(mod, x=x).astype("float64")
    got = tessera.build(mod, "native -num_threads=1")(x=x).astype("float64")
    tiny = np.abs(want) < 1e-35  # float32 subnormals: compared absolutely
    np.testing.assert_allclose(got[~tiny], want[~tiny], rtol=1e-5)
    np.testing.assert_allclose(got[tiny], want[tiny], atol=1e-37)
    assert abs(want[np.argmin(np.abs(x + 5))] / -1.4332578e-06 - 1) < 1e-5  # gelu(-5)
    special = x.copy()
    special[:3] = [np.nan, np.inf, -np.inf]
    out = tessera.build(mod, "native -num_threads=1")(x=special)
    assert np.isnan(out[0]) and out[1] == np.inf
