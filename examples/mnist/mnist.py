"""The MNIST CNN of the Collage design doc, with its weights as parameters, plus an
independent NumPy implementation used to check Tessera's numbers."""
import numpy as np

# The design doc's model (section "Example"), with meta[relay.Constant][i] turned into
# parameters so the weights come in as inputs.
MODEL_TEXT = """\
#[version = "0.0.5"]
def @main(%x: Tensor[(1, 1, 28, 28), float32], %w0: Tensor[(8, 1, 5, 5), float32],
          %b0: Tensor[(8, 1, 1), float32], %w1: Tensor[(16, 8, 5, 5), float32],
          %b1: Tensor[(16, 1, 1), float32], %w2: Tensor[(10, 256), float32],
          %b2: Tensor[(1, 10), float32]) {
  %0 = nn.pad(%x, 0f, pad_width=[[0, 0], [0, 0], [2, 2], [2, 2]]);
  %1 = nn.conv2d(%0, %w0 /*Tensor[(8, 1, 5, 5), float32]*/,
                 padding=[0, 0, 0, 0], channels=8, kernel_size=[5, 5]);
  %2 = add(%1, %b0 /*Tensor[(8, 1, 1), float32]*/);
  %3 = nn.relu(%2);
  %4 = nn.max_pool2d(%3, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0]);
  %5 = nn.pad(%4, 0f, pad_width=[[0, 0], [0, 0], [2, 2], [2, 2]]);
  %6 = nn.conv2d(%5, %w1 /*Tensor[(16, 8, 5, 5), float32]*/,
                 padding=[0, 0, 0, 0], channels=16, kernel_size=[5, 5]);
  %7 = add(%6, %b1 /*Tensor[(16, 1, 1), float32]*/);
  %8 = nn.relu(%7);
  %9 = nn.max_pool2d(%8, pool_size=[3, 3], strides=[3, 3], padding=[0, 0, 0, 0]);
  %10 = reshape(%9, newshape=[1, 256]);
  %11 = nn.dense(%10, %w2 /*Tensor[(10, 256), float32]*/, units=None, out_dtype="float32");
  add(%11, %b2 /*Tensor[(1, 10), float32]*/)
}
"""

SHAPES = {
    "x": (1, 1, 28, 28),
    "w0": (8, 1, 5, 5),
    "b0": (8, 1, 1),
    "w1": (16, 8, 5, 5),
    "b1": (16, 1, 1),
    "w2": (10, 256),
    "b2": (1, 10),
}


def make_inputs(seed=0):
    """Deterministic input image and weights (He-style scaling keeps activations sane)."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in SHAPES.items():
        fan_in = int(np.prod(shape[1:])) if name.startswith("w") else 1
        scale = np.sqrt(2.0 / fan_in) if name.startswith("w") else 0.1
        out[name] = (rng.standard_normal(shape) * scale).astype(np.float32)
    return out


def _conv2d_valid(x, w):
    """Direct convolution, NCHW/OIHW, stride 1, no padding, accumulated in float64."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = h - kh + 1, wd - kw + 1
    out = np.zeros((n, o, oh, ow), dtype=np.float64)
    for dy in range(kh):
        for dx in range(kw):
            patch = x[:, :, dy:dy + oh, dx:dx + ow].astype(np.float64)
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, dy, dx].astype(np.float64))
    return out


def _max_pool(x, k):
    n, c, h, w = x.shape
    oh, ow = (h - k) // k + 1, (w - k) // k + 1
    x = x[:, :, :oh * k, :ow * k].reshape(n, c, oh, k, ow, k)
    return x.max(axis=(3, 5))


def reference(inp):
    """The model computed with NumPy only (float64 accumulation)."""
    pad = ((0, 0), (0, 0), (2, 2), (2, 2))
    y = _conv2d_valid(np.pad(inp["x"], pad), inp["w0"]) + inp["b0"]
    y = _max_pool(np.maximum(y, 0), 2)
    y = _conv2d_valid(np.pad(y, pad), inp["w1"]) + inp["b1"]
    y = _max_pool(np.maximum(y, 0), 3)
    y = y.reshape(1, 256) @ inp["w2"].astype(np.float64).T + inp["b2"]
    return y.astype(np.float32)
