"""Zero-copy tensor exchange through DLPack: tessera.nd.NDArray with NumPy
(``np.from_dlpack``) and PyTorch, DLPack inputs to executables and NDArray outputs."""
import numpy as np
import pytest

import tessera
from tessera import op


def add_model(shape=(2, 3), dtype="float32"):
    x = tessera.var("x", shape=shape, dtype=dtype)
    y = tessera.var("y", shape=shape, dtype=dtype)
    return tessera.IRModule.from_expr(tessera.Function([x, y], op.add(x, y)))


def test_numpy_round_trip_both_ways_shares_memory():
    a = np.arange(6, dtype="float32").reshape(2, 3)
    nd = tessera.nd.from_dlpack(a)
    assert isinstance(nd, tessera.nd.NDArray)
    assert nd.shape == (2, 3) and nd.dtype == "float32" and nd.ndim == 2
    assert nd.__dlpack_device__() == (1, 0)
    back = np.from_dlpack(nd)
    np.testing.assert_array_equal(back, a)
    a[1, 2] = 42.0  # one buffer all the way: NumPy -> Tessera -> NumPy
    assert back[1, 2] == 42.0 and nd.numpy()[1, 2] == 42.0
    del a, nd
    assert back[1, 2] == 42.0  # the chain keeps the memory alive


def test_every_numpy_dtype_round_trips():
    for dtype in ["float32", "float16", "float64", "int8", "int32", "int64", "uint8"]:
        a = (np.arange(5) - 2).astype(dtype)
        np.testing.assert_array_equal(np.from_dlpack(tessera.nd.from_dlpack(a)), a)
        assert tessera.nd.from_dlpack(a).dtype == dtype


def test_unsupported_tensors_are_refused_with_the_reason():
    with pytest.raises(tessera.TesseraUnsupportedError, match="strides"):
        tessera.nd.from_dlpack(np.arange(6, dtype="float32").reshape(2, 3).T)
    with pytest.raises(tessera.TesseraTypeError, match="complex64 is not supported"):
        tessera.nd.from_dlpack(np.zeros(3, dtype="complex64"))
    with pytest.raises(tessera.TesseraTypeError, match="__dlpack__"):
        tessera.nd.from_dlpack([1.0, 2.0])
    capsule = np.zeros(2, dtype="float32").__dlpack__()
    tessera.nd.from_dlpack(capsule)
    with pytest.raises(tessera.TesseraValueError, match="consumed only once"):
        tessera.nd.from_dlpack(capsule)


def test_executable_takes_dlpack_inputs_and_returns_ndarrays():
    mod = add_model()
    ex = tessera.build(mod)
    x = np.arange(6, dtype="float32").reshape(2, 3)
    y = np.full((2, 3), 0.5, dtype="float32")
    want = x + y
    np.testing.assert_array_equal(ex.run(x=tessera.nd.array(x), y=y), want)
    out = ex.run_ndarray(x=x, y=y)
    assert isinstance(out, tessera.nd.NDArray) and out.shape == (2, 3)
    np.testing.assert_array_equal(np.from_dlpack(out), want)
    np.testing.assert_array_equal(np.asarray(out), want)
    # The interpreter takes them too.
    np.testing.assert_array_equal(tessera.run(mod, x=tessera.nd.from_dlpack(x), y=y), want)
    with pytest.raises(tessera.TesseraTypeError, match="input 'x'.*__dlpack__"):
        ex.run(x="not a tensor", y=y)


def test_torch_tensors_in_and_out_without_copies():
    torch = pytest.importorskip("torch")
    mod = add_model((4, 5))
    ex = tessera.build(mod)
    x = torch.randn(4, 5)
    y = torch.randn(4, 5)
    out = ex.run_ndarray(x=x, y=y)
    got = torch.from_dlpack(out)
    assert torch.equal(got, x + y)
    np.testing.assert_array_equal(ex.run(x=x, y=y), (x + y).numpy())
    # Zero-copy both ways: the NDArray views the torch storage and torch views the NDArray.
    nd = tessera.nd.from_dlpack(x)
    x[0, 0] = 123.0
    assert nd.numpy()[0, 0] == 123.0
    t = torch.utils.dlpack.from_dlpack(nd.__dlpack__())
    assert t.data_ptr() == x.data_ptr()
    # Non-contiguous tensors are refused with the reason, not copied silently.
    with pytest.raises(tessera.TesseraUnsupportedError, match="contiguous"):
        ex.run(x=x.t().contiguous().t(), y=y)
    ex.run(x=x.contiguous(), y=y)
    # bfloat16 keeps its exact bits through torch.
    b = torch.tensor([1.5, -2.25, 3.0], dtype=torch.bfloat16)
    back = torch.from_dlpack(tessera.nd.from_dlpack(b))
    assert back.dtype == torch.bfloat16 and torch.equal(back, b)
