"""An independent NumPy evaluator for the ONNX ops of tests/python/onnx_models.py: the
reference the importer's results are compared with (python3-onnx 1.12 has no
onnx.reference). Computes in float64 and returns float32."""
import math

import numpy as np
from onnx import helper, numpy_helper


def _pads_window(x, kernel, strides, pads, dilations, fill):
    """Windows [N, C, OH, OW, KH, KW] of a padded NCHW input."""
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])),
               constant_values=fill)
    n, c, h, w = x.shape
    kh, kw = kernel
    eh, ew = (kh - 1) * dilations[0] + 1, (kw - 1) * dilations[1] + 1
    oh, ow = (h - eh) // strides[0] + 1, (w - ew) // strides[1] + 1
    out = np.empty((n, c, oh, ow, kh, kw), x.dtype)
    for i in range(kh):
        for j in range(kw):
            hi, wj = i * dilations[0], j * dilations[1]
            out[..., i, j] = x[:, :, hi:hi + strides[0] * (oh - 1) + 1:strides[0],
                               wj:wj + strides[1] * (ow - 1) + 1:strides[1]]
    return out


def _conv(x, w, b, a):
    g = a.get("group", 1)
    k = w.shape[2:]
    win = _pads_window(x, k, a.get("strides", [1, 1]), a.get("pads", [0] * 4),
                       a.get("dilations", [1, 1]), 0.0)
    n, c = x.shape[:2]
    cg, og = c // g, w.shape[0] // g
    outs = []
    for gi in range(g):
        xs = win[:, gi * cg:(gi + 1) * cg]
        ws = w[gi * og:(gi + 1) * og]
        outs.append(np.einsum("nchwij,ocij->nohw", xs, ws))
    y = np.concatenate(outs, axis=1)
    return y + b.reshape(1, -1, 1, 1) if b is not None else y


def _maxpool(x, a):
    k = a["kernel_shape"]
    s = a.get("strides", [1, 1])
    p = list(a.get("pads", [0] * 4))
    if a.get("ceil_mode", 0):
        for i in range(2):  # extend the end padding so the last partial window exists
            size = x.shape[2 + i] + p[i] + p[i + 2] - k[i]
            if size % s[i]:
                p[i + 2] += s[i] - size % s[i]
    win = _pads_window(x, k, s, p, a.get("dilations", [1, 1]), -np.inf)
    return win.max(axis=(4, 5))


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def run(model, inputs):
    """Evaluates `model` on a dict of NumPy inputs; returns the list of outputs."""
    env = {i.name: numpy_helper.to_array(i).astype(np.float64)
           if numpy_helper.to_array(i).dtype == np.float32 else numpy_helper.to_array(i)
           for i in model.graph.initializer}
    env.update({k: v.astype(np.float64) for k, v in inputs.items()})
    erf = np.vectorize(math.erf)
    for node in model.graph.node:
        a = _attrs(node)
        x = [env[n] if n else None for n in node.input]
        t = node.op_type
        if t == "Gemm":
            A = x[0].T if a.get("transA") else x[0]
            B = x[1].T if a.get("transB") else x[1]
            y = a.get("alpha", 1.0) * A @ B + (a.get("beta", 1.0) * x[2] if len(x) > 2 else 0)
        elif t == "MatMul":
            y = np.matmul(x[0], x[1])
        elif t in ("Add", "Sub", "Mul", "Div", "Pow"):
            y = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide,
                 "Pow": np.power}[t](x[0], x[1])
        elif t == "Relu":
            y = np.maximum(x[0], 0)
        elif t == "Sqrt":
            y = np.sqrt(x[0])
        elif t == "Erf":
            y = erf(x[0])
        elif t == "Clip":
            y = np.clip(x[0], x[1], x[2])
        elif t == "Conv":
            y = _conv(x[0], x[1], x[2] if len(x) > 2 else None, a)
        elif t == "MaxPool":
            y = _maxpool(x[0], a)
        elif t == "BatchNormalization":
            s, bb, m, v = (z.reshape(1, -1, 1, 1) for z in x[1:5])
            y = (x[0] - m) / np.sqrt(v + a.get("epsilon", 1e-5)) * s + bb
        elif t == "GlobalAveragePool":
            y = x[0].mean(axis=(2, 3), keepdims=True)
        elif t == "Flatten":
            ax = a.get("axis", 1)
            y = x[0].reshape(int(np.prod(x[0].shape[:ax])), -1)
        elif t == "Dropout":
            y = x[0]
        elif t == "Shape":
            y = np.array(x[0].shape, np.int64)
        elif t == "Gather":
            y = np.take(x[0], x[1], axis=a.get("axis", 0))
        elif t == "Unsqueeze":
            y = x[0]
            for ax in sorted(int(v) for v in x[1]):
                y = np.expand_dims(y, ax)
        elif t == "Squeeze":
            y = np.squeeze(x[0], axis=tuple(int(v) for v in x[1]))
        elif t == "Concat":
            y = np.concatenate(x, axis=a["axis"])
        elif t == "Reshape":
            shape = [x[0].shape[i] if d == 0 else int(d) for i, d in enumerate(x[1])]
            y = x[0].reshape(shape)
        elif t == "Split":
            idx = np.cumsum(x[1])[:-1]
            ys = np.split(x[0], idx, axis=a.get("axis", 0))
            for name, v in zip(node.output, ys):
                env[name] = v
            continue
        elif t == "Transpose":
            y = np.transpose(x[0], a["perm"])
        elif t == "Softmax":
            e = np.exp(x[0] - x[0].max(axis=a.get("axis", -1), keepdims=True))
            y = e / e.sum(axis=a.get("axis", -1), keepdims=True)
        elif t == "ReduceMean":
            y = x[0].mean(axis=tuple(a["axes"]), keepdims=bool(a.get("keepdims", 1)))
        elif t == "LayerNormalization":
            m = x[0].mean(axis=-1, keepdims=True)
            v = ((x[0] - m) ** 2).mean(axis=-1, keepdims=True)
            y = (x[0] - m) / np.sqrt(v + a.get("epsilon", 1e-5)) * x[1] + x[2]
        elif t == "Slice":
            sl = [slice(None)] * x[0].ndim
            for s, e, ax in zip(x[1], x[2], x[3]):
                sl[int(ax)] = slice(int(s), int(e))
            y = x[0][tuple(sl)]
        else:
            raise NotImplementedError(f"NumPy reference has no {t}")
        env[node.output[0]] = y
    return [np.asarray(env[o.name]).astype(np.float32) for o in model.graph.output]
