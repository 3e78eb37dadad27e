"""partition_for_dnnl / partition_for_blas end to end: partition, build, run, save/load,
each checked against the reference interpreter on the unpartitioned module."""
import numpy as np
import pytest

import tessera
from tessera import op
from tessera.op import nn

RNG = np.random.default_rng(7)


def const(*shape):
    return tessera.const((RNG.standard_normal(shape) * 0.3).astype("float32"))


def resnet_block():
    x = tessera.var("x", shape=(1, 16, 14, 14))
    c1 = nn.conv2d(x, const(16, 16, 3, 3), padding=(1, 1))
    r1 = nn.relu(op.add(c1, const(16, 1, 1)))
    c2 = nn.bias_add(nn.conv2d(r1, const(16, 16, 3, 3), padding=(1, 1)), const(16))
    out = nn.relu(op.add(c2, x))
    pooled = nn.global_avg_pool2d(out)
    return tessera.IRModule.from_expr(tessera.Function([x], pooled))


def transformer_block(s=12, d=32, f=64):
    x = tessera.var("x", shape=(s, d))

    def dense(v, n, k):
        return nn.bias_add(nn.dense(v, const(n, k)), const(n), axis=-1)

    def ln(v):
        return nn.layer_norm(v, const(d), const(d))

    q, k, v = dense(x, d, d), dense(x, d, d), dense(x, d, d)
    scores = op.multiply(nn.matmul(q, k, transpose_b=True), tessera.const(np.float32(0.25)))
    h = ln(op.add(dense(nn.matmul(nn.softmax(scores), v), d, d), x))
    out = ln(op.add(dense(nn.gelu(dense(h, f, d)), d, f), h))
    return tessera.IRModule.from_expr(tessera.Function([x], out))


def mlp():
    x = tessera.var("x", shape=(3, 20))
    h = nn.relu(nn.bias_add(nn.dense(x, const(24, 20)), const(24), axis=-1))
    return tessera.IRModule.from_expr(tessera.Function([x], nn.dense(h, const(5, 24))))


CASES = [
    ("dnnl", resnet_block, (1, 16, 14, 14)),
    ("dnnl", transformer_block, (12, 32)),
    ("blas", mlp, (3, 20)),
    ("blas", transformer_block, (12, 32)),
]


@pytest.mark.parametrize("compiler,model,shape", CASES,
                         ids=[f"{c}-{m.__name__}" for c, m, _ in CASES])
def test_partition_build_run_save_load(compiler, model, shape, tmp_path):
    if compiler not in {t["name"] for t in tessera.list_targets()}:
        pytest.skip(f"this build has no {compiler} backend")
    before = model()
    after = tessera.partition_for(before, compiler)
    offloaded = [n for n, f in after.functions.items() if f.attrs.get("Compiler") == compiler]
    assert offloaded, after.astext(show_meta_data=False)
    x = RNG.standard_normal(shape).astype("float32")
    expected = np.asarray(tessera.run(before, x=x))
    ex = tessera.build(after, target="native -num_threads=1")
    np.testing.assert_allclose(ex.run(x=x), expected, rtol=1e-4, atol=1e-4)
    rows = ex.profile(x=x, repeat=1)["rows"]
    assert compiler in {row["backend"] for row in rows}, rows
    path = tmp_path / "model.tsx"
    ex.save(path)
    again = tessera.load(path)
    np.testing.assert_array_equal(again.run(x=x), ex.run(x=x))


@pytest.mark.parametrize("target,backend", [("native -compiler=dnnl -num_threads=1", "dnnl"),
                                            ("native -libs=blas -num_threads=1", "blas")])
def test_target_options_offload_without_explicit_partitioning(target, backend):
    if backend not in {t["name"] for t in tessera.list_targets()}:
        pytest.skip(f"this build has no {backend} backend")
    before = transformer_block()
    x = RNG.standard_normal((12, 32)).astype("float32")
    ex = tessera.build(before, target=target)
    np.testing.assert_allclose(ex.run(x=x), np.asarray(tessera.run(before, x=x)),
                               rtol=1e-4, atol=1e-4)
    assert backend in {row["backend"] for row in ex.profile(x=x, repeat=1)["rows"]}


def test_blas_takes_constant_biases_only():
    # A bias that is a model input stays outside the GEMM partition (BLAS folds biases
    # into the output at load), so the model still builds and runs.
    if "blas" not in {t["name"] for t in tessera.list_targets()}:
        pytest.skip("this build has no blas backend")
    x = tessera.var("x", shape=(3, 8))
    b = tessera.var("b", shape=(6,))
    y = nn.bias_add(nn.dense(x, const(6, 8)), b, axis=-1)
    mod = tessera.IRModule.from_expr(tessera.Function([x, b], y))
    after = tessera.partition_for_blas(mod)
    assert 'Composite="blas.dense"' in after.astext(show_meta_data=False)
    inputs = dict(x=RNG.standard_normal((3, 8)).astype("float32"),
                  b=RNG.standard_normal(6).astype("float32"))
    ex = tessera.build(after, target="native -num_threads=1")
    np.testing.assert_allclose(ex.run(**inputs), np.asarray(tessera.run(mod, **inputs)),
                               rtol=1e-5, atol=1e-5)


def test_composites_outside_partitions_are_inlined_by_build():
    # After a bare MergeComposite (no partitioning) the labels mean nothing to the native
    # build: InlineComposites turns them back into plain ops, which FuseOps fuses.
    from tessera import transform
    x = tessera.var("x", shape=(4, 8))
    y = nn.relu(nn.bias_add(nn.dense(x, const(6, 8)), const(6), axis=-1))
    mod = tessera.IRModule.from_expr(tessera.Function([x], y))
    merged = transform.MergeComposite(tessera.pattern.get_pattern_table("dnnl"))(mod)
    assert "Composite=" in merged.astext(show_meta_data=False)
    inlined = transform.InlineComposites()(merged)
    assert tessera.structural_equal(inlined["main"], transform.InferType()(mod)["main"])
    xv = RNG.standard_normal((4, 8)).astype("float32")
    ex = tessera.build(merged, target="native")
    np.testing.assert_allclose(ex.run(x=xv), np.asarray(tessera.run(mod, x=xv)), rtol=1e-5,
                               atol=1e-5)
