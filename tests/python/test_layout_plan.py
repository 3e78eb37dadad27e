"""Layout planning from Python: ConvertLayout with TVM's dict form, PlanLayouts, and
build at opt_level 3 (AlterOpLayout + PlanLayouts in the pipeline) against the interpreter."""
import numpy as np
import pytest

import tessera
from tessera import transform
from tessera.op import nn
from tessera.error import TesseraValueError


def randn(*shape, seed=0):
    return np.random.default_rng(seed + len(shape)).standard_normal(shape).astype("float32")


def two_convs(c=8, hw=8, first_c=None):
    """conv -> bias -> relu -> conv, weights constant."""
    first_c = first_c or c
    x = tessera.var("x", shape=(1, first_c, hw, hw))
    w1 = tessera.const(randn(c, first_c, 3, 3, seed=1) * 0.3)
    b1 = tessera.const(randn(c, seed=2))
    w2 = tessera.const(randn(c, c, 3, 3, seed=3) * 0.3)
    y = nn.conv2d(x, w1, padding=(1, 1))
    y = nn.relu(nn.bias_add(y, b1))
    y = nn.conv2d(y, w2, padding=(1, 1))
    return tessera.IRModule.from_expr(tessera.Function([x], y))


def count(mod, op_name):
    return str(mod).count(op_name + "(")


def test_convert_layout_dict_then_plan_leaves_the_graph_edges():
    mod = two_convs()
    x = randn(1, 8, 8, 8, seed=9)
    seq = transform.Sequential([
        transform.ConvertLayout({"nn.conv2d": ["NCHW4c", "OIHW4i4o"]}),
        transform.PlanLayouts(),
    ])
    with transform.PassContext(opt_level=3):
        planned = seq(mod)
    assert count(planned, "layout_transform") == 2, planned
    assert "frozen_layout=True" in str(planned)
    np.testing.assert_allclose(tessera.run(planned, x=x), tessera.run(mod, x=x),
                               rtol=1e-4, atol=1e-4)


def test_opt_level_3_build_plans_layouts_and_matches_the_interpreter():
    mod = two_convs(c=16, first_c=3, hw=10)
    x = randn(1, 3, 10, 10, seed=4)
    want = tessera.run(mod, x=x)
    with transform.PassContext(opt_level=3):
        ex = tessera.build(mod, "native")
    np.testing.assert_allclose(ex(x=x), want, rtol=1e-4, atol=1e-4)
    # Layout planning can be switched off inside the opt_level 3 pipeline.
    with transform.PassContext(opt_level=3, disabled_pass=["AlterOpLayout"]):
        plain = tessera.build(mod, "native")
    np.testing.assert_allclose(plain(x=x), want, rtol=1e-4, atol=1e-4)
    assert any("layout_transform" in k for k in ex.kernels), ex.kernels
    assert not any("layout_transform" in k for k in plain.kernels), plain.kernels


def test_bad_desired_layouts_are_value_errors():
    with pytest.raises(TesseraValueError, match="no layouts to convert"):
        transform.ConvertLayout({"nn.dense": ["NC"]})
    with pytest.raises(TesseraValueError, match="must be op:layout"):
        transform.ConvertLayout("nn.conv2d")
    with pytest.raises(TesseraValueError, match="declares no preferred layouts"):
        transform.AlterOpLayout(target="dnnl")


def test_freeze_layouts_takes_index_maps_by_op():
    from tessera.layout import IndexMap
    mod = two_convs()
    x = randn(1, 8, 8, 8, seed=9)
    data = IndexMap.from_layouts("NCHW", "NCHW4c")
    weight = IndexMap.from_func(lambda o, i, h, w: (o // 4, h, w, i, o % 4))
    frozen = transform.FreezeLayouts({"nn.conv2d": [data, weight, data]})(mod)
    assert count(frozen, "call_tir") == 2 and "frozen_layout=True" in str(frozen)
    np.testing.assert_allclose(tessera.run(frozen, x=x), tessera.run(mod, x=x),
                               rtol=1e-4, atol=1e-4)
    with pytest.raises(TesseraValueError, match="at least one op"):
        transform.ConvertLayout({})
    # A single layout may be given as a string.
    assert "NHWC" in str(transform.ConvertLayout({"nn.conv2d": "NHWC"})(mod))


def test_collage_searches_the_planned_layouts():
    """At opt_level 3 layouts are planned before Collage's search: its candidates hold the
    blocked convs and the layout transforms, and the program matches the interpreter."""
    from tessera import collage
    collage.register_estimator("layout_mock", collage.MockCostEstimator({"native": 1.0}))
    mod = two_convs(c=16, first_c=16, hw=6)
    x = randn(1, 16, 6, 6, seed=5)
    want = tessera.run(mod, x=x)
    config = {"collage.enable": True, "collage.estimator": "layout_mock"}
    ops = {}
    for name, disabled in [("planned", []), ("plain", ["AlterOpLayout", "PlanLayouts"])]:
        with transform.PassContext(opt_level=3, config=config, disabled_pass=disabled):
            ex = tessera.build(mod, "native")
        np.testing.assert_allclose(ex(x=x), want, rtol=1e-4, atol=1e-4)
        ops[name] = [op for k in ex.collage_report().kernels for op in k["ops"]]
    assert ops["planned"].count("layout_transform") == 2, ops
    assert "layout_transform" not in ops["plain"], ops


SOFTMAX_BETWEEN_NHWC = """
def @main(%x: Tensor[(1, 8, 4, 4), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC");
  %1 = nn.relu(%0, frozen_layout=True);
  %2 = layout_transform(%1, src_layout="NHWC", dst_layout="NCHW");
  %3 = nn.softmax(%2, axis=1);
  %4 = layout_transform(%3, src_layout="NCHW", dst_layout="NHWC");
  nn.relu(%4, frozen_layout=True)
}
"""


def test_a_python_flow_rule_moves_a_layout_through_an_opaque_op():
    from tessera.layout import IndexMap, register_flow_rule, unregister_flow_rule
    mod = tessera.parse(SOFTMAX_BETWEEN_NHWC)
    x = randn(1, 8, 4, 4, seed=6)
    want = tessera.run(mod, x=x)
    nhwc = IndexMap.from_layouts("NCHW", "NHWC")
    seen = []

    def rule(call, m):
        seen.append((call.op.name, str(m)))
        if m != nhwc:
            return None
        return nn.softmax(call.args[0], axis=3), [m]

    with transform.PassContext(opt_level=3):
        assert count(transform.PlanLayouts()(mod), "layout_transform") == 3
        register_flow_rule("nn.softmax", rule)
        try:
            planned = transform.PlanLayouts()(mod)
        finally:
            unregister_flow_rule("nn.softmax")
        assert count(transform.PlanLayouts()(mod), "layout_transform") == 3
    assert seen and seen[0][0] == "nn.softmax", seen
    assert count(planned, "layout_transform") == 1, planned
    assert "axis=3" in str(planned), planned
    np.testing.assert_allclose(tessera.run(planned, x=x), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("answer, error, match", [
    (lambda call, m: 3, tessera.TesseraTypeError, "must return None or"),
    (lambda call, m: (call, [m, m]), TesseraValueError, "1 operand.*2 map"),
    (lambda call, m: (call, ["NHWC"]), tessera.TesseraTypeError, r"operand_maps\[0\]"),
    (lambda call, m: (call, [transposed_2d()]), TesseraValueError, "rank 4"),
])
def test_bad_flow_rules_are_clear_errors(answer, error, match):
    from tessera.layout import register_flow_rule, unregister_flow_rule
    mod = tessera.parse(SOFTMAX_BETWEEN_NHWC)
    register_flow_rule("nn.softmax", answer)
    try:
        with transform.PassContext(opt_level=3), pytest.raises(error, match=match):
            transform.PlanLayouts()(mod)
    finally:
        unregister_flow_rule("nn.softmax")


def test_a_rule_that_raises_reaches_the_caller_and_unknown_ops_are_refused():
    from tessera.layout import register_flow_rule, unregister_flow_rule

    class Mine(Exception):
        pass

    def rule(call, m):
        raise Mine("from the rule")

    mod = tessera.parse(SOFTMAX_BETWEEN_NHWC)
    register_flow_rule("nn.softmax", rule)
    try:
        with transform.PassContext(opt_level=3), pytest.raises(Mine, match="from the rule"):
            transform.PlanLayouts()(mod)
    finally:
        unregister_flow_rule("nn.softmax")
    with pytest.raises(tessera.TesseraNotFoundError, match="unknown op 'nn.nope'"):
        register_flow_rule("nn.nope", rule)


def transposed_2d():
    from tessera.layout import IndexMap
    return IndexMap.from_func(lambda i, j: (j, i))


ADD_4X4 = """
primfn @add_4x4(%A: Buffer[(4, 4), float32], %B: Buffer[(4, 4), float32]) -> (%C: Buffer[(4, 4), float32]) {
  for %i: int32 in 0 +: 4 {
    for %j: int32 in 0 +: 4 {
      block "C"(%vi: int32 in 0 +: 4 spatial = %i, %vj: int32 in 0 +: 4 spatial = %j) reads(%A[%vi, %vj], %B[%vi, %vj]) writes(%C[%vi, %vj]) {
        %C[%vi, %vj] = %A[%vi, %vj] + %B[%vi, %vj];
      }
    }
  }
}
"""

ADD_CHAIN_16 = """
def @main(%x: Tensor[(16), float32], %y: Tensor[(16), float32]) {
  %0 = add(%x, %y);
  add(%0, %y)
}
"""


def test_alter_op_impl_runs_a_replacement_in_its_layouts_and_builds():
    from tessera.layout import IndexMap
    add = tessera.parse(ADD_4X4)["add_4x4"]
    split = IndexMap.from_func(lambda i: (i // 4, i % 4))
    mod = tessera.parse(ADD_CHAIN_16)
    feeds = {"x": randn(16, seed=1), "y": randn(16, seed=2)}
    want = tessera.run(mod, **feeds)
    seq = transform.Sequential([
        transform.AlterOpImpl({"add": add}, {"add": [split, split, split]}),
        transform.PlanLayouts(),
    ])
    with transform.PassContext(opt_level=3):
        out = seq(mod)
        ex = tessera.build(out, "native")
    text = str(out)
    assert text.count("call_tir(@add_replacement") == 2 and "frozen_layout=True" in text, text
    assert count(out, "layout_transform") == 3, text  # x, y in; the result out
    np.testing.assert_allclose(tessera.run(out, **feeds), want, rtol=1e-6)
    np.testing.assert_allclose(ex(**feeds), want, rtol=1e-6)
    # The text form names a PrimFunc of the module.
    text_mod = tessera.parse(ADD_CHAIN_16 + ADD_4X4)
    named = transform.AlterOpImpl("add=add_4x4", f"add:{split}|{split}|{split}")(text_mod)
    assert "call_tir(@add_4x4" in str(named)
    np.testing.assert_allclose(tessera.run(named, **feeds), want, rtol=1e-6)


def test_alter_op_impl_errors():
    from tessera.layout import IndexMap
    add = tessera.parse(ADD_4X4)["add_4x4"]
    mod = tessera.parse(ADD_CHAIN_16)
    with pytest.raises(tessera.TesseraTypeError, match=r"parameter 0 \('A'\) as \[4, 4\]"):
        transform.AlterOpImpl({"add": add})(mod)
    with pytest.raises(TesseraValueError, match="gives no replacement"):
        transform.AlterOpImpl({"add": add}, {"multiply": []})
    with pytest.raises(tessera.TesseraNotFoundError, match="unknown op 'nn.nope'"):
        transform.AlterOpImpl({"nn.nope": add})
    with pytest.raises(TesseraValueError, match="needs at least one op"):
        transform.AlterOpImpl({})
    with pytest.raises(tessera.TesseraTypeError, match="expected a PrimFunc|PrimFunc"):
        transform.AlterOpImpl({"add": tessera.var("x", shape=(4,))})
    split8 = IndexMap.from_func(lambda i: (i // 8, i % 8))
    with pytest.raises(tessera.TesseraTypeError, match=r"operand 0 under .* is \[2, 8\]"):
        transform.AlterOpImpl({"add": add}, {"add": [split8, None, None]})(mod)


def test_convert_layout_crops_what_padded_weights_add_to_an_unblocked_result():
    rng = np.random.default_rng(3)
    x = tessera.var("x", shape=(1, 5, 9, 9))
    w = tessera.const(rng.standard_normal((6, 5, 3, 3)).astype("float32"))
    mod = tessera.IRModule.from_expr(tessera.Function([x], nn.relu(nn.conv2d(x, w, padding=(1, 1)))))
    data = rng.standard_normal((1, 5, 9, 9)).astype("float32")
    out = transform.ConvertLayout({"nn.conv2d": ["NCHW4c", "OIHW4i4o", "NCHW"]})(mod)
    assert count(out, "crop") == 1, out
    np.testing.assert_allclose(tessera.run(out, x=data), tessera.run(mod, x=data), rtol=1e-5,
                               atol=1e-5)
    with pytest.raises(TesseraValueError, match=r"ConvertLayout: op 'nn.conv2d' cannot take "
                                                r"layouts \[NCHW4c, OIHW4i4o, NHWC\]"):
        transform.ConvertLayout({"nn.conv2d": ["NCHW4c", "OIHW4i4o", "NHWC"]})(mod)
    with pytest.raises(TesseraValueError, match="ConvertLayout: op 'nn.conv2d': layout 'NCHW4q'"):
        transform.ConvertLayout({"nn.conv2d": ["NCHW4q"]})
    with pytest.raises(tessera.TesseraTypeError, match="must be a list of layout strings"):
        transform.ConvertLayout({"nn.conv2d": 5})
    for entry in ([], [1, "NHWC"], "nn.conv2d"):
        with pytest.raises(tessera.TesseraTypeError, match=r"must be \[op, layout, ...\]"):
            transform.ConvertLayout([entry])


def test_flow_rule_mistakes_name_the_rule():
    from tessera.layout import IndexMap, register_flow_rule, unregister_flow_rule
    mod = tessera.parse(SOFTMAX_BETWEEN_NHWC)
    cases = [
        # A result of the wrong shape (pooling instead of softmax).
        (lambda call, m: (nn.max_pool2d(call.args[0], pool_size=(2, 2), layout="NHWC"), [m]),
         TesseraValueError, "answered nn.max_pool2d with a result of shape"),
        (lambda call, m: (tessera.var("v", shape=(1, 8, 4, 4)), [m]), tessera.TesseraTypeError,
         "new_call must be a call of an op"),
        (lambda call, m: (call, [IndexMap.from_func(lambda n, c, h, w: (n, h, w, c // 2))]),
         TesseraValueError, "rewrites operand 0 by .* which is not injective"),
    ]
    for rule, error, match in cases:
        register_flow_rule("nn.softmax", rule)
        try:
            with transform.PassContext(opt_level=3), pytest.raises(error, match=match):
                transform.PlanLayouts()(mod)
        finally:
            unregister_flow_rule("nn.softmax")
    with pytest.raises(tessera.TesseraTypeError, match="must be callable"):
        register_flow_rule("nn.softmax", 42)
    with pytest.raises(tessera.TesseraTypeError, match="use `//`"):
        IndexMap.from_func(lambda i: (i / 2,))
