"""tessera.collage: rule trees from Python, candidates as index sets, PartitionForTesting,
and the `tessera collage candidates` CLI."""
import subprocess

import pytest

import tessera
from tessera import collage

RESNET_BLOCK = """
def @main(%x: Tensor[(1, 8, 8, 8), float32], %w1: Tensor[(8, 8, 3, 3), float32],
          %w2: Tensor[(8, 8, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  %2 = nn.conv2d(%1, %w2, padding=[1, 1, 1, 1]);
  %3 = add(%2, %x);
  nn.relu(%3)
}
"""

T57 = "Tensor[(5, 7), float32]"
SINGLE_OP = f"""
def @main(%a: {T57}, %b: {T57}, %c: {T57}, %d: {T57}) {{
  %0 = add(%a, %b);
  %1 = add(%c, %d);
  subtract(%0, %1)
}}
"""


def fuse_ops_like_from_primitives(depth):
    return collage.only_valid(
        "valid",
        collage.combine(
            "combine",
            collage.op_call_by_kind(),
            [collage.all_simple("all_simple", [("A", "B"), ("B", "R"), ("I", "I")]),
             collage.tuple_arg(), collage.tuple_proj()],
            max_depth=depth),
        max_exits=1, allow_taps=False, max_depth=depth)


def test_rule_tree_from_primitives_finds_resnet_block_candidates():
    mod = tessera.parse(RESNET_BLOCK)
    rule = fuse_ops_like_from_primitives(4)
    assert str(rule) == str(collage.fuse_ops_like(4))
    assert "AllSimple(A->B, B->R, I->I)" in str(rule)
    cands = collage.candidates(rule, mod, spec_name="native")
    sets = sorted(tuple(c["indexes"]) for c in cands)
    assert sets == [(6,), (6, 7), (7,), (8,), (8, 9), (8, 9, 10), (9,), (9, 10), (10,)]
    by_set = {tuple(c["indexes"]): c for c in cands}
    conv_relu = by_set[(6, 7)]
    assert conv_relu["label"] == "nn.conv2d+nn.relu"
    assert conv_relu["kind"] == "out_elemwise_fusable"
    assert conv_relu["exits"] == [7]
    assert conv_relu["rule_name"].startswith("native.valid.combine")
    fn = conv_relu["function"]
    assert isinstance(fn, tessera.Function)
    assert len(fn.params) == 2
    labels = collage.node_labels(mod)
    assert labels[6] == "nn.conv2d" and labels[-1] == "fn"


def test_op_predicate_with_callable_and_composite():
    mod = tessera.parse(RESNET_BLOCK)
    rule = collage.composite("conv", collage.op_predicate(
        "convs", lambda call: call.op.name == "nn.conv2d"))
    cands = collage.candidates(rule, mod)
    assert [c["indexes"] for c in cands] == [[6], [8]]
    assert cands[0]["nested"][0][1] == {"Composite": "conv"}
    by_name = collage.candidates(collage.op_predicate("relus", ["nn.relu"]), mod)
    assert [c["indexes"] for c in by_name] == [[7], [10]]


def test_partition_for_testing_matches_expected_ir():
    mod = tessera.parse(SINGLE_OP)
    out = collage.PartitionForTesting(1, False, "foo", [7])(mod)
    expected = tessera.parse(f"""
def @main(%a: {T57}, %b: {T57}, %c: {T57}, %d: {T57}) {{
  %0 = add(%a, %b);
  %1 = fn (%x: {T57}, %y: {T57}, Compiler="foo") {{
    add(%x, %y)
  }};
  %2 = %1(%c, %d);
  subtract(%0, %2)
}}
""")
    tessera.assert_structural_equal(tessera.transform.get_pass("InferType")(out),
                                    tessera.transform.get_pass("InferType")(expected))
    # Two exits with max_exits=1: invalid, so unchanged.
    same = collage.PartitionForTesting(1, False, "foo", [6, 7])(mod)
    tessera.assert_structural_equal(tessera.transform.get_pass("InferType")(same),
                                    tessera.transform.get_pass("InferType")(mod))


def test_errors_are_exceptions():
    with pytest.raises(tessera.TesseraValueError):
        collage.all_simple("x", [("Q", "B")])
    with pytest.raises(tessera.TesseraValueError):
        collage.PartitionForTesting(1, False, "foo", [99])(tessera.parse(SINGLE_OP))


def test_target_candidates_and_host():
    mod = tessera.parse(RESNET_BLOCK)
    specs = collage.target_candidates(mod, ["native"], max_depth=4, host=True)
    assert list(specs) == ["native", "host"]
    assert len(specs["native"]) == 9
    assert [c["indexes"] for c in specs["host"]][:3] == [[0], [1], [2]]
    assert specs["host"][-1]["indexes"] == [11] and specs["host"][-1]["function"] is None


def test_cli_lists_candidates(tessera_cli, tmp_path):
    model = tmp_path / "block.txt"
    model.write_text(RESNET_BLOCK)
    res = subprocess.run([tessera_cli, "collage", "candidates", str(model), "--target", "native",
                          "--rules"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "spec native (target native): 9 candidate(s)" in res.stdout
    assert "{8,9,10}" in res.stdout and "nn.conv2d+add+nn.relu" in res.stdout
    bad = subprocess.run([tessera_cli, "collage", "candidates", str(model), "--max-depth", "x"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1 and "max-depth" in bad.stderr


def test_dfpattern_rule_finds_overlapping_matches():
    from tessera.pattern import is_op, wildcard
    mod = tessera.parse(RESNET_BLOCK)
    conv_relu = is_op("nn.relu")(is_op("nn.conv2d")(wildcard(), wildcard()))
    rule = collage.composite("conv_relu", collage.dfpattern("", conv_relu))
    cands = collage.candidates(rule, mod)
    assert [c["indexes"] for c in cands] == [[6, 7]]  # the second relu follows an add
    assert cands[0]["nested"][0][1] == {"Composite": "conv_relu"}
    # relu(_) at both relus; a predicate on the root keeps the one after the add.
    any_relu = collage.dfpattern("relu", is_op("nn.relu")(wildcard()),
                                 lambda root: root.args[0].op.name == "add")
    assert [c["indexes"] for c in collage.candidates(any_relu, mod)] == [[10]]
    assert "DFPattern(relu: is_op(\"nn.relu\")(wildcard()))" in str(any_relu)
    with pytest.raises(tessera.TesseraTypeError):
        collage.dfpattern("x", "nn.relu")


def test_byoc_specs_from_pattern_tables():
    if "dnnl" not in tessera.pattern.list_pattern_tables():
        pytest.skip("built without oneDNN")
    mod = tessera.parse(RESNET_BLOCK)
    specs = collage.target_candidates(mod, ["native -compiler=dnnl"], max_depth=4)
    assert list(specs) == ["native", "dnnl"]
    dnnl = specs["dnnl"]
    sets = {tuple(c["indexes"]) for c in dnnl}
    assert (6, 7) in sets and (8, 9, 10) in sets  # conv+relu, conv+add(sum)+relu
    for c in dnnl:
        (kernel_indexes, kernel_attrs, composites), = c["nested"]
        assert kernel_attrs == {"Primitive": 1, "Compiler": "dnnl"}
        for _, attrs, _ in composites:
            assert attrs["Composite"].startswith("dnnl.")
        assert c["spec"] == "dnnl" and len(c["exits"]) == 1
    assert "Primitive()" in str(collage.byoc("dnnl", max_depth=2, fusion="none"))
    with pytest.raises(tessera.TesseraValueError, match="fusion style"):
        collage.byoc("dnnl", fusion="some")
    with pytest.raises(tessera.TesseraError, match="nosuchlib"):
        collage.byoc("nosuchlib")


def test_user_index_sets_are_checked():
    mod = tessera.parse(RESNET_BLOCK)
    labels = collage.node_labels(mod)
    assert labels[3] == "op" and labels[6] == "nn.conv2d"
    # conv {6} and conv {8} without the relu {7} between them: not convex.
    with pytest.raises(tessera.TesseraValueError, match="cannot become one function"):
        collage.rewrite(mod, [([6, 8], {"Compiler": "x"})])
    with pytest.raises(tessera.TesseraValueError, match="overlaps"):
        collage.rewrite(mod, [([6, 7], {}), ([7, 8], {})])
    with pytest.raises(tessera.TesseraValueError, match="op 'nn.relu' itself"):
        collage.rewrite(mod, [([3], {})])
    with pytest.raises(tessera.TesseraValueError, match="no indexes"):
        collage.PartitionForTesting(1, False, "x", [])(mod)
    with pytest.raises(tessera.TesseraValueError, match="index 11 is not a sub-expression"):
        collage.PartitionForTesting(1, False, "x", [11])(mod)
    out = collage.rewrite(mod, [([6, 7], {"Compiler": "x"})])
    assert 'Compiler="x"' in str(out)


def test_rule_arguments_are_checked():
    from tessera.pattern import is_op, wildcard
    mod = tessera.parse(RESNET_BLOCK)
    relu = is_op("nn.relu")(wildcard())
    with pytest.raises(tessera.TesseraTypeError, match="callable"):
        collage.dfpattern("x", relu, 42)
    with pytest.raises(tessera.TesseraNotFoundError, match="nn.nope"):
        collage.op_predicate("x", ["nn.nope"])
    with pytest.raises(tessera.TesseraTypeError, match="must return a bool"):
        collage.candidates(collage.dfpattern("x", relu, lambda root: "no"), mod)
    with pytest.raises(tessera.TesseraTypeError, match="must return a bool"):
        collage.candidates(collage.op_predicate("x", lambda call: None), mod)
    with pytest.raises(tessera.TesseraValueError, match="max_depth must be >= 0"):
        collage.byoc("dnnl", max_depth=-1)
    # max_depth=0 means no limit (TVM's convention).
    unlimited = collage.candidate_counts(mod, ["native"], max_depth=0)
    assert unlimited == collage.candidate_counts(mod, ["native"], max_depth=50)
    assert str(mod["main"].body.op) == "nn.relu"
