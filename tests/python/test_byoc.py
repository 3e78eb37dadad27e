"""The classic BYOC flow from Python: MergeComposite, AnnotateTarget,
MergeCompilerRegions, PartitionGraph and partition_for_dnnl / partition_for_blas."""
import numpy as np

import tessera
from tessera import transform
from tessera.op import nn
from tessera import op

RNG = np.random.default_rng(0)


def const(*shape, dtype="float32"):
    return tessera.const((RNG.standard_normal(shape) * 0.3).astype(dtype))


def compiler_functions(mod, compiler):
    return {name: f for name, f in mod.functions.items()
            if f.attrs.get("Compiler") == compiler}


def composite_labels(mod):
    labels = []
    seen = set()

    def walk(e):
        if e in seen:
            return
        seen.add(e)
        if isinstance(e, tessera.Function):
            if "Composite" in e.attrs:
                labels.append(e.attrs["Composite"])
            walk(e.body)
        elif isinstance(e, tessera.Call):
            walk(e.op)
            for a in e.args:
                walk(a)
        elif isinstance(e, tessera.Tuple):
            for f in e.fields:
                walk(f)
        elif isinstance(e, tessera.TupleGetItem):
            walk(e.tuple_value)

    for f in compiler_functions(mod, "dnnl").values():
        walk(f.body)
    for f in compiler_functions(mod, "blas").values():
        walk(f.body)
    return labels


def same_results(before, after, **inputs):
    a = tessera.run(before, **inputs)
    b = tessera.run(after, **inputs)
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)


def resnet_block():
    x = tessera.var("x", shape=(1, 8, 8, 8))
    c1 = nn.conv2d(x, const(8, 8, 3, 3), padding=(1, 1))
    r1 = nn.relu(op.add(c1, const(8, 1, 1)))
    c2 = nn.bias_add(nn.conv2d(r1, const(8, 8, 3, 3), padding=(1, 1)), const(8))
    out = nn.relu(op.add(c2, x))
    return tessera.IRModule.from_expr(tessera.Function([x], out))


def test_partition_for_dnnl_resnet_block():
    before = resnet_block()
    after = tessera.partition_for_dnnl(before)
    text = after.astext(show_meta_data=False)
    assert 'Compiler="dnnl"' in text and 'Composite="dnnl.conv2d_bias_relu"' in text
    assert list(compiler_functions(after, "dnnl")) == ["dnnl_main_0"]
    assert sorted(composite_labels(after)) == ["dnnl.conv2d_bias_relu", "dnnl.conv2d_bias_sum_relu"]
    same_results(before, after, x=RNG.standard_normal((1, 8, 8, 8)).astype("float32"))


def test_partition_for_dnnl_transformer_block():
    s, d, f = 8, 16, 32
    x = tessera.var("x", shape=(s, d))

    def dense(v, n, k):
        return nn.bias_add(nn.dense(v, const(n, k)), const(n), axis=-1)

    def ln(v):
        return nn.layer_norm(v, const(d), const(d))

    q, k, v = dense(x, d, d), dense(x, d, d), dense(x, d, d)
    probs = nn.softmax(op.multiply(nn.matmul(q, k, transpose_b=True),
                                   tessera.const(np.float32(0.25))))
    h = ln(op.add(dense(nn.matmul(probs, v), d, d), x))
    out = ln(op.add(dense(nn.gelu(dense(h, f, d)), d, f), h))
    before = tessera.IRModule.from_expr(tessera.Function([x], out))
    after = tessera.partition_for_dnnl(before)
    assert len(compiler_functions(after, "dnnl")) == 1
    labels = sorted(composite_labels(after))
    assert labels == ["dnnl.dense_bias"] * 3 + ["dnnl.dense_bias_gelu"] + \
        ["dnnl.dense_bias_sum"] * 2 + ["dnnl.matmul"] * 2
    same_results(before, after, x=RNG.standard_normal((s, d)).astype("float32"))


def test_unsupported_dtype_stays_native():
    a = tessera.var("a", shape=(2, 4), dtype="float64")
    y = nn.relu(nn.dense(a, const(3, 4, dtype="float64")))
    before = tessera.IRModule.from_expr(tessera.Function([a], y))
    after = tessera.partition_for_dnnl(before)
    assert compiler_functions(after, "dnnl") == {}
    assert tessera.structural_equal(after["main"], transform.InferType()(before)["main"])


def test_passes_step_by_step_and_blas():
    x = tessera.var("x", shape=(4, 8))
    y = nn.relu(op.add(nn.dense(x, const(6, 8)), const(6)))
    before = tessera.IRModule.from_expr(tessera.Function([x], y))
    mod = transform.MergeComposite(tessera.pattern.get_pattern_table("blas"))(before)
    assert 'Composite="blas.dense_bias"' in mod.astext(show_meta_data=False)
    mod = transform.AnnotateTarget(["blas"])(mod)
    assert "annotation.compiler_begin" in mod.astext(show_meta_data=False)
    mod = transform.MergeCompilerRegions()(mod)
    mod = transform.PartitionGraph()(mod)
    assert list(compiler_functions(mod, "blas")) == ["blas_main_0"]
    f = mod["blas_main_0"]
    assert f.attrs["Primitive"] == 1 and f.attrs["global_symbol"] == "blas_main_0"
    assert "annotation" not in mod.astext(show_meta_data=False)
    same_results(before, mod, x=RNG.standard_normal((4, 8)).astype("float32"))
    blas = tessera.partition_for_blas(before)
    assert tessera.structural_equal(blas, mod)


def test_merge_composite_with_a_python_table_and_predicate():
    x = tessera.var("x", shape=(4,))
    before = tessera.IRModule.from_expr(tessera.Function([x], nn.relu(op.exp(x))))
    pat = tessera.pattern.is_op("nn.relu")(tessera.pattern.is_op("exp")(tessera.pattern.wildcard()))
    mod = transform.MergeComposite([("my.exp_relu", pat)])(before)
    assert 'Composite="my.exp_relu"' in mod.astext()
    vetoed = transform.MergeComposite([("my.exp_relu", pat, lambda root: False)])(before)
    assert "Composite" not in vetoed.astext()
