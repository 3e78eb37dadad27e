"""Small ONNX models built with onnx.helper (no PyTorch): the op patterns of an MLP, a
MNIST CNN, a ResNet basic block, a MobileNetV2 inverted residual, a SqueezeNet fire
module and a transformer encoder layer as torch.onnx.export writes them (decomposed
LayerNorm, Erf GELU, Shape->Gather->Concat->Reshape shape sub-graphs). Weights come from a
seeded NumPy generator. `python3 onnx_models.py DIR` writes every model to DIR/NAME.onnx."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class _Builder:
    """Collects nodes and initializers with unique names."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, prefix):
        self.n += 1
        return f"{prefix}_{self.n}"

    def weight(self, shape, scale=None, prefix="w"):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
        scale = scale if scale is not None else 1.0 / np.sqrt(max(fan_in, 1))
        return self.const(self.rng.uniform(-scale, scale, shape).astype(np.float32), prefix)

    def const(self, array, prefix="c"):
        name = self.name(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type, inputs, n_out=1, **attrs):
        outs = [self.name(op_type.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=self.name(op_type),
                                           **attrs))
        return outs[0] if n_out == 1 else outs

    def model(self, inputs, outputs, opset=13, name="model"):
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
            initializer=self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="tessera-tests")
        # Output shapes come from ONNX's own shape inference; then the full check.
        inferred = onnx.shape_inference.infer_shapes(m, data_prop=True).graph.output
        for out, typed in zip(m.graph.output, inferred):
            out.CopyFrom(typed)
        # The checker wants output shapes, which ONNX 1.12 cannot always propagate through
        # Shape->Gather->Concat->Reshape; those models are checked by the tests instead.
        if all(o.type.tensor_type.HasField("shape") for o in m.graph.output):
            onnx.checker.check_model(m, full_check=True)
        return m

    # -- composite layers --------------------------------------------------------------
    def conv(self, x, cin, cout, k, stride=1, pad=0, group=1, bias=True, dilation=1):
        w = self.weight((cout, cin // group, k, k))
        ins = [x, w] + ([self.weight((cout,), 0.1)] if bias else [])
        return self.op("Conv", ins, kernel_shape=[k, k], strides=[stride, stride],
                       pads=[pad] * 4, group=group, dilations=[dilation, dilation])

    def bn(self, x, c):
        scale = self.const(self.rng.uniform(0.5, 1.5, c).astype(np.float32))
        bias = self.const(self.rng.uniform(-0.2, 0.2, c).astype(np.float32))
        mean = self.const(self.rng.uniform(-0.2, 0.2, c).astype(np.float32))
        var = self.const(self.rng.uniform(0.5, 1.5, c).astype(np.float32))
        return self.op("BatchNormalization", [x, scale, bias, mean, var], epsilon=1e-5)

    def shape_reshape(self, x, tail_dims):
        """Reshape x to [x.shape[0], *tail_dims] through Shape->Gather->Unsqueeze->Concat,
        as torch exports `x.view(x.size(0), ...)`."""
        shape = self.op("Shape", [x])
        batch = self.op("Gather", [shape, self.const(np.array(0, np.int64))], axis=0)
        batch = self.op("Unsqueeze", [batch, self.const(np.array([0], np.int64))])
        tail = self.const(np.array(tail_dims, np.int64))
        target = self.op("Concat", [batch, tail], axis=0)
        return self.op("Reshape", [x, target])


def mlp(seed=0, batch=2, dims=(784, 64, 64, 10)):
    """MLP: Gemm (transB) + Relu layers, the last one a MatMul + Add."""
    b = _Builder(seed)
    x = "input"
    for i, (a, c) in enumerate(zip(dims[:-1], dims[1:])):
        if i < len(dims) - 2:
            x = b.op("Gemm", [x, b.weight((c, a)), b.weight((c,), 0.1)], transB=1)
            x = b.op("Relu", [x])
        else:
            x = b.op("Add", [b.op("MatMul", [x, b.weight((a, c))]), b.weight((c,), 0.1)])
    return b.model([("input", [batch, dims[0]])], [x], name="mlp")


def mnist_cnn(seed=0):
    """MNIST CNN: Conv-Relu-MaxPool twice, a shape sub-graph Reshape, Gemm."""
    b = _Builder(seed)
    x = b.op("Relu", [b.conv("input", 1, 8, 5, pad=2)])
    x = b.op("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = b.op("Relu", [b.conv(x, 8, 16, 5, pad=2)])
    x = b.op("MaxPool", [x], kernel_shape=[3, 3], strides=[3, 3])
    x = b.shape_reshape(x, [16 * 4 * 4])
    x = b.op("Gemm", [x, b.weight((10, 256)), b.weight((10,), 0.1)], transB=1)
    return b.model([("input", [1, 1, 28, 28])], [x], name="mnist_cnn")


def resnet_block(seed=0, c=8, hw=16):
    """ResNet-18 stem pieces: a basic block, a strided block with a 1x1 downsample, and the
    GlobalAveragePool-Flatten-Gemm head."""
    b = _Builder(seed)
    x = b.op("Relu", [b.bn(b.conv("input", 3, c, 3, pad=1, bias=False), c)])
    x = b.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    y = b.op("Relu", [b.bn(b.conv(x, c, c, 3, pad=1, bias=False), c)])
    y = b.bn(b.conv(y, c, c, 3, pad=1, bias=False), c)
    x = b.op("Relu", [b.op("Add", [y, x])])
    y = b.op("Relu", [b.bn(b.conv(x, c, 2 * c, 3, stride=2, pad=1, bias=False), 2 * c)])
    y = b.bn(b.conv(y, 2 * c, 2 * c, 3, pad=1, bias=False), 2 * c)
    d = b.bn(b.conv(x, c, 2 * c, 1, stride=2, bias=False), 2 * c)
    x = b.op("Relu", [b.op("Add", [y, d])])
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])], axis=1)
    x = b.op("Gemm", [x, b.weight((5, 2 * c)), b.weight((5,), 0.1)], transB=1)
    return b.model([("input", [1, 3, hw, hw])], [x], name="resnet_block")


def mobilenet_v2_block(seed=0, c=8, hw=12, expand=4):
    """MobileNetV2: Conv-BN-Clip(0,6) stem, an inverted residual (1x1 expand, 3x3 depthwise,
    1x1 project, residual Add), then a strided inverted residual without residual."""
    b = _Builder(seed)
    lo, hi = b.const(np.array(0, np.float32)), b.const(np.array(6, np.float32))

    def relu6(v):
        return b.op("Clip", [v, lo, hi])

    x = relu6(b.bn(b.conv("input", 3, c, 3, stride=1, pad=1, bias=False), c))
    e = c * expand
    y = relu6(b.bn(b.conv(x, c, e, 1, bias=False), e))
    y = relu6(b.bn(b.conv(y, e, e, 3, pad=1, group=e, bias=False), e))
    y = b.bn(b.conv(y, e, c, 1, bias=False), c)
    x = b.op("Add", [x, y])
    y = relu6(b.bn(b.conv(x, c, e, 1, bias=False), e))
    y = relu6(b.bn(b.conv(y, e, e, 3, stride=2, pad=1, group=e, bias=False), e))
    x = b.bn(b.conv(y, e, 2 * c, 1, bias=False), 2 * c)
    x = b.op("GlobalAveragePool", [x])
    x = b.op("Reshape", [x, b.const(np.array([1, -1], np.int64))])
    return b.model([("input", [1, 3, hw, hw])], [x], name="mobilenet_v2_block")


def squeezenet_fire(seed=0, hw=15):
    """SqueezeNet 1.1: Conv-Relu, MaxPool with ceil_mode, a fire module (squeeze 1x1,
    expand 1x1 and 3x3, Concat), Dropout, the 1x1 classifier and GlobalAveragePool."""
    b = _Builder(seed)
    x = b.op("Relu", [b.conv("input", 3, 16, 3, stride=2)])
    x = b.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    s = b.op("Relu", [b.conv(x, 16, 4, 1)])
    e1 = b.op("Relu", [b.conv(s, 4, 8, 1)])
    e3 = b.op("Relu", [b.conv(s, 4, 8, 3, pad=1)])
    x = b.op("Concat", [e1, e3], axis=1)
    x = b.op("Dropout", [x])
    x = b.op("Relu", [b.conv(x, 16, 6, 1)])
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])])
    return b.model([("input", [1, 3, hw, hw])], [x], name="squeezenet_fire")


def transformer_layer(seed=0, seq=8, d=16, heads=2, ff=32, opset=13):
    """A post-norm torch.nn.TransformerEncoderLayer (batch_first, GELU) as exported: one
    in-projection MatMul Split into Q, K, V; head reshapes built from Shape->Gather->
    Unsqueeze->Concat; Softmax attention; decomposed LayerNorm (ReduceMean, Sub, Pow, Sqrt,
    Div) — or LayerNormalization from opset 17 for the second norm; Erf GELU; Slice."""
    b = _Builder(seed)
    dh = d // heads
    x = "input"

    def dyn_shape(v, dims_from_v, tail):
        shape = b.op("Shape", [v])
        parts = [b.op("Unsqueeze", [b.op("Gather", [shape, b.const(np.array(i, np.int64))],
                                         axis=0), b.const(np.array([0], np.int64))])
                 for i in dims_from_v]
        parts.append(b.const(np.array(tail, np.int64)))
        return b.op("Concat", parts, axis=0)

    def layer_norm(v):
        mean = b.op("ReduceMean", [v], axes=[-1])
        cen = b.op("Sub", [v, mean])
        var = b.op("ReduceMean", [b.op("Pow", [cen, b.const(np.array(2.0, np.float32))])],
                   axes=[-1])
        std = b.op("Sqrt", [b.op("Add", [var, b.const(np.array(1e-5, np.float32))])])
        y = b.op("Div", [cen, std])
        return b.op("Add", [b.op("Mul", [y, b.weight((d,), 1.0)]), b.weight((d,), 0.1)])

    qkv = b.op("Add", [b.op("MatMul", [x, b.weight((d, 3 * d))]), b.weight((3 * d,), 0.1)])
    q, k, v = b.op("Split", [qkv, b.const(np.array([d, d, d], np.int64))], n_out=3, axis=-1)

    def heads_of(t):
        t = b.op("Reshape", [t, dyn_shape(t, [0, 1], [heads, dh])])
        return b.op("Transpose", [t], perm=[0, 2, 1, 3])

    q, k, v = heads_of(q), heads_of(k), heads_of(v)
    scores = b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 1, 3, 2])])
    scores = b.op("Div", [scores, b.const(np.array(np.sqrt(dh), np.float32))])
    att = b.op("MatMul", [b.op("Softmax", [scores], axis=-1), v])
    att = b.op("Transpose", [att], perm=[0, 2, 1, 3])
    att = b.op("Reshape", [att, dyn_shape(att, [0, 1], [d])])
    att = b.op("Add", [b.op("MatMul", [att, b.weight((d, d))]), b.weight((d,), 0.1)])
    x = layer_norm(b.op("Add", [x, att]))
    h = b.op("Add", [b.op("MatMul", [x, b.weight((d, ff))]), b.weight((ff,), 0.1)])
    gelu = b.op("Erf", [b.op("Div", [h, b.const(np.array(np.sqrt(2.0), np.float32))])])
    gelu = b.op("Add", [gelu, b.const(np.array(1.0, np.float32))])
    h = b.op("Mul", [b.op("Mul", [h, gelu]), b.const(np.array(0.5, np.float32))])
    h = b.op("Add", [b.op("MatMul", [h, b.weight((ff, d))]), b.weight((d,), 0.1)])
    x = b.op("Add", [x, h])
    if opset >= 17:
        x = b.op("LayerNormalization", [x, b.weight((d,), 1.0), b.weight((d,), 0.1)], axis=-1,
                 epsilon=1e-5)
    else:
        x = layer_norm(x)
    # The first token's features (torch: x[:, 0]) through Slice + Squeeze, and all tokens.
    first = b.op("Slice", [x, b.const(np.array([0], np.int64)), b.const(np.array([1], np.int64)),
                           b.const(np.array([1], np.int64))])
    first = b.op("Squeeze", [first, b.const(np.array([1], np.int64))])
    return b.model([("input", [1, seq, d])], [x, first], opset=opset, name="transformer_layer")


def resnet18(seed=0, hw=224, classes=1000, width=64):
    """The full torchvision ResNet-18 architecture (conv1 7x7/2, max pool, four stages of
    two basic blocks, global average pool, Flatten, Gemm), seeded random weights, as
    torch.onnx.export writes it (BatchNormalization kept; opset 13)."""
    b = _Builder(seed)
    x = b.op("Relu", [b.bn(b.conv("input", 3, width, 7, stride=2, pad=3, bias=False), width)])
    x = b.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = width
    for stage, cout in enumerate([width, 2 * width, 4 * width, 8 * width]):
        for block in range(2):
            stride = 2 if stage > 0 and block == 0 else 1
            y = b.op("Relu", [b.bn(b.conv(x, cin, cout, 3, stride=stride, pad=1, bias=False),
                                   cout)])
            y = b.bn(b.conv(y, cout, cout, 3, pad=1, bias=False), cout)
            short = x if stride == 1 and cin == cout else b.bn(
                b.conv(x, cin, cout, 1, stride=stride, bias=False), cout)
            x = b.op("Relu", [b.op("Add", [y, short])])
            cin = cout
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])], axis=1)
    x = b.op("Gemm", [x, b.weight((classes, cin)), b.weight((classes,), 0.1)], transB=1)
    return b.model([("input", [1, 3, hw, hw])], [x], name="resnet18")


def relu_add_symbolic():
    """y = Relu(x + b) with x: [batch, 3] (a symbolic batch) and b = [-1, 0, 1]; checked in
    as tests/data/onnx/relu_add.onnx for the C API test."""
    b = _Builder(0)
    bias = b.const(np.array([-1.0, 0.0, 1.0], np.float32), "bias")
    y = b.op("Relu", [b.op("Add", ["x", bias])])
    return b.model([("x", ["batch", 3])], [y], name="relu_add")


MODELS = {
    "mlp": mlp,
    "mnist_cnn": mnist_cnn,
    "resnet_block": resnet_block,
    "mobilenet_v2_block": mobilenet_v2_block,
    "squeezenet_fire": squeezenet_fire,
    "transformer_layer": transformer_layer,
    "transformer_layer_opset17": lambda seed=0: transformer_layer(seed, opset=17),
    "resnet18_small": lambda seed=0: resnet18(seed, hw=32, classes=10, width=8),
}


def input_for(model, seed=1):
    """A seeded random input for every graph input of `model`."""
    rng = np.random.default_rng(seed)
    init = {i.name for i in model.graph.initializer}
    out = {}
    for vi in model.graph.input:
        if vi.name in init:
            continue
        shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        out[vi.name] = rng.standard_normal(shape).astype(np.float32)
    return out


if __name__ == "__main__":
    import os
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out_dir, exist_ok=True)
    for name, make in MODELS.items():
        onnx.save(make(), os.path.join(out_dir, name + ".onnx"))
        print(os.path.join(out_dir, name + ".onnx"))
