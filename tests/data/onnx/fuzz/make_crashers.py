"""Writes the minimized ONNX models that crashed the importer (kept as files: regression
inputs for tests/python/test_onnx_crashers.py and seeds for fuzzing). Run with
/usr/bin/python3 from this folder; the files are checked in."""
from onnx import TensorProto, helper, save


def model(node, inputs, outputs, inits=()):
    graph = helper.make_graph([node], "g", inputs, outputs, initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


# Split and Gather at axis 0 of a scalar: the shape has no axis 0.
save(model(helper.make_node("Split", ["x"], ["a"], axis=0), [vi("x", [])], [vi("a", None)]),
     "split_rank0.onnx")
idx = helper.make_tensor("i", TensorProto.INT64, [], [0])
save(model(helper.make_node("Gather", ["x", "i"], ["y"], axis=0), [vi("x", [])], [vi("y", None)],
           [idx]), "gather_rank0.onnx")
# A zero stride with SAME padding: the padding computation divides by it.
w = helper.make_tensor("w", TensorProto.FLOAT, [1, 1, 1, 1], [1.0])
save(model(helper.make_node("Conv", ["x", "w"], ["y"], strides=[0, 1], auto_pad="SAME_UPPER"),
           [vi("x", [1, 1, 4, 4])], [vi("y", None)], [w]), "conv_stride0_same.onnx")
save(model(helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[1, 0],
                            auto_pad="SAME_LOWER"),
           [vi("x", [1, 1, 4, 4])], [vi("y", None)]), "maxpool_stride0_same.onnx")
save(model(helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], strides=[0, 0],
                            auto_pad="SAME_UPPER"),
           [vi("x", [1, 1, 4, 4])], [vi("y", None)]), "avgpool_stride0_same.onnx")
