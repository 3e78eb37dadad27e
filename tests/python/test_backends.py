"""Library backends (oneDNN, OpenBLAS) through tessera.build: Compiler partitions against
the interpreter on odd and even shapes, save -> load in a fresh process, list_targets, and
a clear error for what a backend cannot run."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera
from tessera.op import nn

RNG = np.random.default_rng(1)
NAMES = [t["name"] for t in tessera.list_targets()]


def randn(*shape):
    return RNG.standard_normal(shape).astype("float32")


def T(shape, dtype="float32"):
    return "Tensor[(%s), %s]" % (", ".join(str(s) for s in shape), dtype)


def partitioned(compiler, params, body):
    """@main(params) calls partition @<compiler>_0(params) whose body is `body`."""
    decl = ", ".join("%%%s: %s" % (n, T(s)) for n, s in params)
    args = ", ".join("%" + n for n, _ in params)
    name = compiler + "_0"
    return (f'def @{name}({decl}, Primitive=1, Compiler="{compiler}", global_symbol="{name}") '
            f"{{\n  {body}\n}}\ndef @main({decl}) {{\n  @{name}({args})\n}}\n")


def check(text, inputs, tol=1e-4):
    mod = tessera.parse(text)
    want = tessera.run(mod, **inputs)
    ex = tessera.build(mod, target="native")
    got = ex.run(**inputs)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    return mod, ex


def test_backends_are_listed():
    assert "dnnl" in NAMES and "blas" in NAMES
    blas = [t for t in tessera.list_targets() if t["name"] == "blas"][0]
    assert "OpenBLAS core" in blas["description"]


@pytest.mark.parametrize("m,k,n", [(3, 17, 9), (4, 32, 8)])
def test_blas_dense_relu(m, k, n):
    # (Constant biases, the form partition_for_blas produces, are covered by the C++ tests;
    # the BLAS backend fuses only constant biases.)
    text = partitioned("blas", [("x", (m, k)), ("w", (n, k))], "%0 = nn.dense(%x, %w);\n  nn.relu(%0)")
    check(text, dict(x=randn(m, k), w=randn(n, k)))


@pytest.mark.parametrize("b,m,k,n", [(3, 5, 7, 4), (2, 8, 16, 8)])
def test_blas_and_dnnl_batch_matmul(b, m, k, n):
    for compiler in ("blas", "dnnl"):
        text = partitioned(compiler, [("a", (b, m, k)), ("y", (b, n, k))],
                           "nn.batch_matmul(%a, %y)")
        check(text, dict(a=randn(b, m, k), y=randn(b, n, k)))


@pytest.mark.parametrize("hw,groups", [(7, 1), (8, 4)])
def test_dnnl_conv_bias_relu_pool(hw, groups):
    body = (f"%0 = nn.conv2d(%x, %w, padding=[1, 1], groups={groups});\n"
            "  %1 = nn.bias_add(%0, %b);\n  %2 = nn.relu(%1);\n"
            "  nn.max_pool2d(%2, pool_size=[2, 2], strides=[2, 2])")
    text = partitioned("dnnl", [("x", (1, 4, hw, hw)), ("w", (8, 4 // groups, 3, 3)), ("b", (8,))],
                       body)
    check(text, dict(x=randn(1, 4, hw, hw), w=randn(8, 4 // groups, 3, 3), b=randn(8)))


def test_dnnl_partitions_run_with_the_executors_thread_count(tmp_path):
    # oneDNN sizes its primitives for a team when it builds them: a partition built for
    # one thread and loaded for two (and back) rebuilds them and gives the same result.
    body = "%0 = nn.conv2d(%x, %w, padding=[1, 1]);\n  nn.relu(%0)"
    text = partitioned("dnnl", [("x", (1, 8, 20, 20)), ("w", (16, 8, 3, 3))], body)
    inputs = dict(x=randn(1, 8, 20, 20), w=randn(16, 8, 3, 3))
    mod = tessera.parse(text)
    one = tessera.build(mod, target="native -num_threads=1")
    want = one.run(**inputs)
    one.save(tmp_path / "m.tsx")
    two = tessera.load(tmp_path / "m.tsx", num_threads=2)
    np.testing.assert_allclose(two.run(**inputs), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(one.run(**inputs), want, rtol=1e-5, atol=1e-5)


def test_dnnl_dense_gelu_softmax_layer_norm():
    body = ("%0 = nn.dense(%x, %w);\n  %1 = nn.gelu(%0);\n  %2 = nn.layer_norm(%1, %g, %be);\n"
            "  nn.softmax(%2)")
    text = partitioned("dnnl", [("x", (5, 12)), ("w", (16, 12)), ("g", (16,)), ("be", (16,))],
                       body)
    check(text, dict(x=randn(5, 12), w=randn(16, 12), g=randn(16), be=randn(16)))


@pytest.mark.parametrize("compiler", ["dnnl", "blas"])
def test_saved_partitions_run_in_a_fresh_process(tmp_path, compiler):
    text = partitioned(compiler, [("x", (6, 10)), ("w", (5, 10))], "nn.dense(%x, %w)")
    inputs = dict(x=randn(6, 10), w=randn(5, 10))
    _, ex = check(text, inputs)
    ex.save(tmp_path / "m.tsx")
    np.savez(tmp_path / "io.npz", want=ex.run(**inputs), **inputs)
    script = ("import sys, numpy as np, tessera\n"
              "d = sys.argv[1]\n"
              "io = np.load(d + '/io.npz')\n"
              "ex = tessera.load(d + '/m.tsx', num_threads=1)\n"
              "got = ex.run(x=io['x'], w=io['w'])\n"
              "sys.exit(0 if np.array_equal(got, io['want']) else 3)\n")
    result = subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=dict(os.environ),
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_unsupported_dtype_in_a_partition_is_a_clear_error():
    text = partitioned("dnnl", [("x", (2, 3))], "nn.relu(%x)").replace("float32", "int32")
    with pytest.raises(tessera.TesseraUnsupportedError, match="float32"):
        tessera.build(tessera.parse(text), target="native")


PARALLEL_KINDS = [
    ("max_pool2d", lambda x: nn.max_pool2d(x, pool_size=(3, 3), strides=(2, 2), padding=(1, 1)),
     [(1, 64, 56, 56)]),
    ("global_avg_pool2d", nn.global_avg_pool2d, [(1, 2048, 7, 7)]),
    ("depthwise conv2d", lambda x: nn.conv2d(x, tessera.const(np.ones((144, 1, 3, 3), "float32")),
                                             padding=(1, 1), groups=144), [(1, 144, 56, 56)]),
    ("small conv2d", lambda x: nn.conv2d(x, tessera.const(np.ones((16, 16, 3, 3), "float32")),
                                         padding=(1, 1)), [(1, 16, 14, 14)]),
    ("concatenate", lambda a, b: tessera.op.concatenate([a, b], axis=1),
     [(1, 64, 56, 56), (1, 64, 56, 56)]),
    ("relu", nn.relu, [(1, 64, 56, 56)]),
    ("sum", lambda x: tessera.op.sum(x, axis=[1]), [(64, 4096)]),
    ("softmax", nn.softmax, [(12, 128, 128)]),
    ("layer_norm", lambda x: nn.layer_norm(x, tessera.const(np.ones(768, "float32")),
                                           tessera.const(np.zeros(768, "float32"))), [(128, 768)]),
    ("batch_matmul", nn.batch_matmul, [(12, 128, 64), (12, 128, 64)]),
    ("dense, one row", lambda x: nn.dense(x, tessera.const(np.ones((512, 512), "float32"))),
     [(1, 512)]),
]


@pytest.mark.parametrize("name, fn, shapes", PARALLEL_KINDS, ids=[k[0] for k in PARALLEL_KINDS])
def test_every_kernel_kind_shares_its_work_between_threads(name, fn, shapes):
    """Each kernel kind with enough work runs a parallel region on the thread pool, and
    gives the interpreter's numbers on two threads."""
    vs = [tessera.var(f"x{i}", shape=s) for i, s in enumerate(shapes)]
    mod = tessera.IRModule.from_expr(tessera.Function(vs, fn(*vs)))
    ex = tessera.build(mod, "native -num_threads=2")
    assert "env->parallel_for(" in ex.source(), name
    # Below -min_parallel_work (element stores) the kernel stays on the calling thread.
    serial = tessera.build(mod, "native -num_threads=2 -min_parallel_work=1000000000")
    assert "env->parallel_for(" not in serial.source(), name
    rng = np.random.default_rng(1)
    feeds = {f"x{i}": rng.standard_normal(s).astype("float32") for i, s in enumerate(shapes)}
    want = tessera.run(mod, **feeds)
    np.testing.assert_allclose(ex(**feeds), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(serial(**feeds), want, rtol=1e-4, atol=1e-4)

