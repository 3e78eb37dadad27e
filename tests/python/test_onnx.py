"""The ONNX importer on models built with onnx.helper (tests/python/onnx_models.py):
results of the interpreter and the native build against an independent NumPy reference,
shape sub-graph folding, options, and clear errors for bad or unsupported models."""
import subprocess

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import tessera
import onnx_models
import onnx_numpy_ref

RTOL, ATOL = 1e-4, 1e-5


@pytest.fixture(scope="module", params=sorted(onnx_models.MODELS))
def model_case(request):
    model = onnx_models.MODELS[request.param]()
    inputs = onnx_models.input_for(model)
    return request.param, model, inputs, onnx_numpy_ref.run(model, inputs)


def _as_list(result):
    return list(result) if isinstance(result, tuple) else [result]


def test_models_match_numpy_in_interpreter(model_case):
    name, model, inputs, expected = model_case
    mod = tessera.frontend.from_onnx(model)
    got = _as_list(tessera.evaluate(mod, **inputs))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=RTOL, atol=ATOL, err_msg=name)


def test_models_match_numpy_native(model_case):
    name, model, inputs, expected = model_case
    exe = tessera.build(tessera.frontend.from_onnx(model), target="native")
    got = _as_list(exe.run(**inputs))
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=RTOL, atol=ATOL, err_msg=name)


@pytest.mark.parametrize("name", ["mnist_cnn", "transformer_layer"])
def test_shape_subgraphs_fold_away(name):
    text = tessera.frontend.from_onnx(onnx_models.MODELS[name]()).astext()
    # Shape->Gather->Unsqueeze->Concat feeding Reshape leaves only the reshapes.
    assert "take(" not in text and "concatenate(" not in text
    assert "reshape(" in text


def test_supported_ops_cover_the_model_zoo():
    ops = set(tessera.frontend.onnx_supported_ops())
    used = {n.op_type for make in onnx_models.MODELS.values() for n in make().graph.node}
    assert used <= ops
    for op in ["Gemm", "BatchNormalization", "Conv", "MaxPool", "AveragePool",
               "GlobalAveragePool", "Clip", "Relu", "Sigmoid", "Tanh", "Add", "Sub", "Mul",
               "Div", "Pow", "Sqrt", "Exp", "Log", "Neg", "Abs", "Flatten", "Reshape",
               "Concat", "Pad", "Cast", "Identity", "Dropout", "Constant", "ReduceMean",
               "ReduceSum", "Where", "Expand", "Squeeze", "Unsqueeze", "Equal", "Less",
               "Greater", "MatMul", "Softmax", "LayerNormalization", "Erf", "Split", "Slice",
               "Transpose", "Shape", "Gather"]:
        assert op in ops, op
    assert tessera.frontend.onnx_supported_opsets() == (11, 17)


def test_path_bytes_and_params_as_inputs(tmp_path):
    model = onnx_models.mlp()
    path = tmp_path / "mlp.onnx"
    onnx.save(model, str(path))
    a = tessera.frontend.from_onnx(path)
    b = tessera.frontend.from_onnx(str(path))
    c = tessera.frontend.from_onnx(model.SerializeToString())
    assert tessera.structural_equal(a, b) and tessera.structural_equal(a, c)
    assert [p.name_hint for p in a["main"].params] == ["input"]
    p = tessera.frontend.from_onnx(model, params_as_inputs=True)
    names = [q.name_hint for q in p["main"].params]
    assert names[0] == "input" and names[1:] == [i.name for i in model.graph.initializer]
    inputs = onnx_models.input_for(model)
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    np.testing.assert_allclose(tessera.evaluate(p, **inputs, **weights),
                               tessera.evaluate(a, **inputs), rtol=1e-6)


def _single_node_model(node, inputs, outputs, opset=13, inits=()):
    graph = helper.make_graph([node], "g", inputs, outputs, initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _vi(name, shape, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, shape)


def test_shape_overrides_for_symbolic_dims():
    node = helper.make_node("Relu", ["x"], ["y"], name="relu0")
    model = _single_node_model(node, [_vi("x", ["batch", 4])], [_vi("y", ["batch", 4])])
    with pytest.raises(tessera.TesseraUnsupportedError, match="symbolic.*batch.*shape_overrides"):
        tessera.frontend.from_onnx(model)
    mod = tessera.frontend.from_onnx(model, shape_overrides={"x": [3, 4]})
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(tessera.evaluate(mod, x=x), np.maximum(x, 0))
    with pytest.raises(tessera.TesseraNotFoundError, match="'nope'"):
        tessera.frontend.from_onnx(model, shape_overrides={"x": [3, 4], "nope": [1]})
    # An override fixes symbolic dimensions; it cannot contradict the static ones.
    with pytest.raises(tessera.TesseraValueError, match="dimension 1 = 5, but the model fixes it to 4"):
        tessera.frontend.from_onnx(model, shape_overrides={"x": [3, 5]})
    with pytest.raises(tessera.TesseraValueError, match="has 3 dimension"):
        tessera.frontend.from_onnx(model, shape_overrides={"x": [3, 4, 1]})


def test_cli_shape_option_for_symbolic_dims(tessera_cli, tmp_path):
    node = helper.make_node("Relu", ["x"], ["y"], name="relu0")
    model = _single_node_model(node, [_vi("x", ["batch", 4])], [_vi("y", ["batch", 4])])
    path = tmp_path / "relu.onnx"
    path.write_bytes(model.SerializeToString())
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "y.npy"
    res = subprocess.run([tessera_cli, "run", str(path), "--shape", "x=3,4", "--target", "native",
                          "--input", f"x={tmp_path / 'x.npy'}", "--output", str(out)],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    np.testing.assert_array_equal(np.load(out), np.maximum(x, 0))
    res = subprocess.run([tessera_cli, "compile", str(path), "-o", str(tmp_path / "m.tsx")],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 1 and "--shape NAME=" in res.stderr
    res = subprocess.run([tessera_cli, "compile", str(path), "-o", str(tmp_path / "m.tsx"),
                          "--shape", "x=3,zero"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 1 and "'zero' is not a positive integer" in res.stderr
    res = subprocess.run([tessera_cli, "opt", str(path), "--shape", "x=3,4"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "Tensor[(3, 4), float32]" in res.stdout, res.stderr


def test_unsupported_op_names_type_node_and_opset():
    node = helper.make_node("Hardmax", ["x"], ["y"], name="hm7")
    model = _single_node_model(node, [_vi("x", [2, 3])], [_vi("y", [2, 3])], opset=13)
    with pytest.raises(tessera.TesseraUnsupportedError,
                       match=r"node 'hm7' \(op Hardmax, opset 13\).*'Hardmax' is not supported"):
        tessera.frontend.from_onnx(model)


def test_unsupported_attribute_is_named():
    node = helper.make_node("MaxPool", ["x"], ["y"], name="pool1", kernel_shape=[2, 2],
                            storage_order=1)
    model = _single_node_model(node, [_vi("x", [1, 1, 4, 4])], [_vi("y", [1, 1, 2, 2])])
    with pytest.raises(tessera.TesseraUnsupportedError,
                       match=r"node 'pool1' \(op MaxPool, opset 13\).*attribute 'storage_order'"):
        tessera.frontend.from_onnx(model)
    node = helper.make_node("Relu", ["x"], ["y"], name="r", bogus=3)
    model = _single_node_model(node, [_vi("x", [2])], [_vi("y", [2])])
    with pytest.raises(tessera.TesseraUnsupportedError, match="attribute 'bogus'"):
        tessera.frontend.from_onnx(model)


def test_opset_outside_range_is_rejected():
    node = helper.make_node("Relu", ["x"], ["y"])
    for opset in (9, 18):
        model = _single_node_model(node, [_vi("x", [2])], [_vi("y", [2])], opset=opset)
        with pytest.raises(tessera.TesseraUnsupportedError, match=f"opset {opset}"):
            tessera.frontend.from_onnx(model)


def test_malformed_files_fail_cleanly(tmp_path):
    data = onnx_models.mnist_cnn().SerializeToString()
    for cut in (len(data) // 2, len(data) - 3, 7):
        with pytest.raises(tessera.TesseraError):
            tessera.frontend.from_onnx(data[:cut])
    with pytest.raises(tessera.TesseraParseError, match="not a valid ONNX model"):
        tessera.frontend.from_onnx(b"\xff\xfe garbage \x00\x01" * 10)
    with pytest.raises(tessera.TesseraParseError, match="empty"):
        tessera.frontend.from_onnx(b"")
    with pytest.raises(tessera.TesseraIOError, match="cannot open"):
        tessera.frontend.from_onnx(tmp_path / "missing.onnx")
    node = helper.make_node("Add", ["x", "ghost"], ["y"], name="add0")
    model = _single_node_model(node, [_vi("x", [2])], [_vi("y", [2])])
    with pytest.raises(tessera.TesseraParseError, match="node 'add0'.*'ghost'"):
        tessera.frontend.from_onnx(model)
    node = helper.make_node("Relu", ["x"], ["y"])
    model = _single_node_model(node, [_vi("x", [2])], [_vi("z", [2])])
    with pytest.raises(tessera.TesseraParseError, match="output 'z'"):
        tessera.frontend.from_onnx(model)
    with pytest.raises(tessera.TesseraTypeError):
        tessera.frontend.from_onnx(42)


def test_ops_beyond_the_zoo_against_numpy():
    """Pad, Cast, Where, Expand, Sigmoid, Tanh, AveragePool, ReduceSum, comparisons,
    Constant and Clip without bounds in one graph."""
    nodes = [
        helper.make_node("Pad", ["x", "pads"], ["p"], mode="constant"),
        helper.make_node("AveragePool", ["p"], ["ap"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Sigmoid", ["ap"], ["s"]),
        helper.make_node("Tanh", ["ap"], ["t"]),
        helper.make_node("Greater", ["s", "t"], ["gt"]),
        helper.make_node("Where", ["gt", "s", "t"], ["w"]),
        helper.make_node("Constant", [], ["shape"], value=numpy_helper.from_array(
            np.array([2, 1, 3, 3], np.int64))),
        helper.make_node("Expand", ["w", "shape"], ["e"]),
        helper.make_node("ReduceSum", ["e", "axes"], ["rs"], keepdims=0),
        helper.make_node("Cast", ["gt"], ["c"], to=TensorProto.FLOAT),
        helper.make_node("Clip", ["rs"], ["out"]),
    ]
    inits = [numpy_helper.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "pads"),
             numpy_helper.from_array(np.array([1], np.int64), "axes")]
    graph = helper.make_graph(nodes, "g", [_vi("x", [1, 1, 4, 4])],
                              [_vi("out", None), _vi("c", None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    x = np.random.default_rng(3).standard_normal((1, 1, 4, 4)).astype(np.float32)
    p = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ap = p.reshape(1, 1, 3, 2, 3, 2).mean(axis=(3, 5))
    s, t = 1 / (1 + np.exp(-ap)), np.tanh(ap)
    w = np.where(s > t, s, t)
    expected = np.broadcast_to(w, (2, 1, 3, 3)).sum(axis=1)
    mod = tessera.frontend.from_onnx(model)
    for got in (tessera.evaluate(mod, x=x), tessera.build(mod).run(x=x)):
        np.testing.assert_allclose(got[0], expected, rtol=RTOL, atol=ATOL)
        np.testing.assert_array_equal(got[1], (s > t).astype(np.float32))
