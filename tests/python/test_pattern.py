"""tessera.pattern: building, printing and matching DFPatterns, rewriting and partitioning."""
import pytest

import tessera
from tessera import transform
from tessera.pattern import (DFPatternCallback, dominates, get_pattern_table, is_constant,
                             is_expr, is_op, is_tuple, is_tuple_get_item, is_var, partition,
                             rewrite, wildcard)


def typed_main(text):
    return transform.InferType()(tessera.parse(text))["main"]


CONV = """
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, %b);
  nn.relu(%1)
}
"""


def test_call_alternation_and_optional():
    body = typed_main(CONV).body
    conv = is_op("nn.conv2d")(wildcard(), wildcard())
    biased = is_op("nn.bias_add")(conv, wildcard()) | is_op("add")(conv, wildcard())
    with_relu = biased.optional(lambda p: is_op("nn.relu")(p))
    assert with_relu.match(body)
    assert with_relu.match(body.args[0])
    assert not biased.match(body)
    assert not is_op("nn.relu")(wildcard(), wildcard()).match(body)
    assert is_op("nn.relu")(is_op("nn.bias_add")(conv, is_var("b"))).match(body)
    assert not is_op("nn.relu")(is_op("nn.bias_add")(conv, is_var("x"))).match(body)


def test_attr_type_shape_dtype_predicates():
    body = typed_main(CONV).body.args[0].args[0]
    conv = is_op("nn.conv2d")(wildcard(), wildcard())
    assert conv.has_attr({"groups": 1, "data_layout": "NCHW"}).match(body)
    assert not conv.has_attr({"groups": 2}).match(body)
    assert conv.has_shape([1, 4, 8, 8]).match(body)
    assert conv.has_dtype("float32").match(body)
    assert not conv.has_dtype("float64").match(body)
    assert conv.has_type(tessera.TensorType((1, 4, 8, 8), "float32")).match(body)


def test_constants_vars_tuples_and_shared_nodes():
    f = typed_main("""
def @main(%x: Tensor[(4), float32]) {
  %0 = add(%x, 2f);
  %1 = sigmoid(%0);
  %2 = multiply(%0, %1);
  (%2, %x)
}""")
    x = wildcard()
    swish = is_op("multiply")(x, is_op("sigmoid")(x))
    assert swish.match(f.body.fields[0])
    assert is_op("add")(is_var("x"), is_constant()).match(f.body.fields[0].args[0])
    assert is_tuple([swish, is_expr(f.params[0])]).match(f.body)
    assert not is_tuple([wildcard()]).match(f.body)
    assert not is_tuple_get_item(wildcard(), 0).match(f.body)


def test_dominator_pattern_needs_post_dominance():
    f = typed_main("""
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  add(%1, %0)
}""")
    elemwise = wildcard().has_attr({"TOpPattern": 0})(wildcard())
    diamond = dominates(is_op("nn.conv2d")(wildcard(), wildcard()), elemwise,
                        is_op("add")(wildcard(), wildcard()))
    node_map = tessera.pattern.match_in(diamond, f.body, f)
    assert node_map is not None
    assert diamond.match(f.body)


def test_patterns_print_readably():
    p = is_op("nn.relu")(is_op("nn.conv2d")(wildcard(), is_constant())) | wildcard()
    assert repr(p) == ('(is_op("nn.relu")(is_op("nn.conv2d")(wildcard(), is_constant())) '
                       '| wildcard())')
    assert str(is_tuple_get_item(is_var("t"), 1).has_dtype("float32")) == \
        'is_tuple_get_item(is_var("t"), 1).has_dtype("float32")'


def test_rewrite_callback_runs_to_fixpoint():
    f = typed_main("""
def @main(%x: Tensor[(4), float32]) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%0);
  nn.relu(%1)
}""")

    class DropDoubleRelu(DFPatternCallback):
        def __init__(self):
            super().__init__()
            self.inner = is_op("nn.relu")(wildcard())
            self.pattern = is_op("nn.relu")(self.inner)

        def callback(self, pre, post, node_map):
            return post.args[0]

    out = rewrite(DropDoubleRelu(), f)
    expected = typed_main("def @main(%x: Tensor[(4), float32]) { nn.relu(%x) }")
    assert tessera.structural_equal(out, expected)


def test_partition_makes_composites_and_embeds_is_constant_matches():
    mod = transform.InferType()(tessera.parse("""
def @main(%x: Tensor[(4), float32]) {
  %0 = add(%x, 1f);
  nn.relu(%0)
}"""))
    f = mod["main"]
    embedded = partition(is_op("nn.relu")(is_op("add")(wildcard(), is_constant())), f, "t.a")
    call = embedded.body
    assert call.op.attrs["Composite"] == "t.a"
    assert len(call.args) == 1          # the constant stays inside
    passed = partition(is_op("nn.relu")(is_op("add")(wildcard(), wildcard())), f, "t.b")
    assert len(passed.body.args) == 2   # the wildcard-matched constant becomes an argument
    vetoed = partition(is_op("nn.relu")(wildcard()), f, "t.c", check=lambda root: False)
    assert tessera.structural_equal(vetoed, f)


def test_pattern_tables_are_visible():
    table = get_pattern_table("dnnl")
    labels = [label for label, _, _ in table]
    assert "dnnl.conv2d_bias_relu" in labels and "dnnl.dense_bias_gelu" in labels
    assert "blas.dense_bias" in [label for label, _, _ in get_pattern_table("blas")]
    with pytest.raises(tessera.TesseraError):
        get_pattern_table("nope")
    assert "nn.softmax" in tessera.pattern.supported_ops("dnnl")
