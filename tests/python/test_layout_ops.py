"""The layout ops from Python: layout_transform with an index map (or layout strings),
crop, and the frozen_layout attribute, through the interpreter and a native build against
NumPy."""
import numpy as np
import pytest

import tessera
from tessera import op
from tessera.layout import IndexMap


def run_both(shape, make, dtype="float32", seed=0):
    """make(x) -> expr; returns (interpreter result, native result, input)."""
    rng = np.random.default_rng(seed)
    if np.issubdtype(np.dtype(dtype), np.integer):
        x_np = rng.integers(-50, 50, size=shape).astype(dtype)
    else:
        x_np = rng.standard_normal(shape).astype(dtype)
    x = tessera.var("x", shape=shape, dtype=dtype)
    mod = tessera.IRModule.from_expr(tessera.Function([x], make(x)))
    interp = tessera.evaluate(mod, x_np)
    native = tessera.build(mod, "native")(x=x_np)
    return interp, native, x_np


def nchw_to_nchwc(x, block, pad_value=0.0):
    """NCHW -> NCHW{block}c in NumPy, channels padded up to a multiple of block."""
    n, c, h, w = x.shape
    blocks = -(-c // block)
    padded = np.full((n, blocks * block, h, w), pad_value, dtype=x.dtype)
    padded[:, :c] = x
    return padded.reshape(n, blocks, block, h, w).transpose(0, 1, 3, 4, 2)


def test_blocked_layout_by_index_map_and_by_layouts():
    expected = None
    for make in (lambda x: op.layout_transform(x, "lambda n, c, h, w: (n, c // 16, h, w, c % 16)"),
                 lambda x: op.layout_transform(x, src_layout="NCHW", dst_layout="NCHW16c")):
        interp, native, x = run_both((1, 32, 5, 3), make)
        expected = nchw_to_nchwc(x, 16)
        np.testing.assert_array_equal(interp, expected)
        np.testing.assert_array_equal(native, expected)
    # Both spellings are one call.
    x = tessera.var("x", shape=(1, 32, 5, 3))
    a = op.layout_transform(x, index_map="lambda n, c, h, w: (n, c // 16, h, w, c % 16)")
    b = op.layout_transform(x, src_layout="NCHW", dst_layout="NCHW16c")
    assert tessera.ir.structural_equal(a, b)
    assert "src_layout" not in b.attrs
    # Stored with the variables renamed i0, i1, ... (equal maps, equal calls).
    assert b.attrs["index_map"] == "lambda i0, i1, i2, i3: (i0, i1 // 16, i2, i3, i1 % 16)"


@pytest.mark.parametrize("pad_value", [None, -3.0])
def test_padding_holds_pad_value(pad_value):
    interp, native, x = run_both(
        (1, 6, 4, 3),
        lambda x: op.layout_transform(x, "lambda n, c, h, w: (n, c // 4, h, w, c % 4)",
                                      pad_value=pad_value))
    expected = nchw_to_nchwc(x, 4, 0.0 if pad_value is None else pad_value)
    assert expected.shape == (1, 2, 4, 3, 4)
    np.testing.assert_array_equal(interp, expected)
    np.testing.assert_array_equal(native, expected)


def test_integer_padding_at_both_ends_and_a_transpose():
    interp, native, x = run_both(
        (3, 14), lambda x: op.layout_transform(x, "lambda i, j: (i, (j + 1) // 4, (j + 1) % 4)",
                                               pad_value=7), dtype="int32")
    expected = np.full((3, 16), 7, dtype="int32")
    expected[:, 1:15] = x
    np.testing.assert_array_equal(interp, expected.reshape(3, 4, 4))
    np.testing.assert_array_equal(native, expected.reshape(3, 4, 4))
    interp, native, x = run_both((2, 3, 4),
                                 lambda x: op.layout_transform(x, "lambda a, b, c: (c, a, b)"))
    np.testing.assert_array_equal(interp, x.transpose(2, 0, 1))
    np.testing.assert_array_equal(native, x.transpose(2, 0, 1))


def test_index_map_objects_are_taken_by_their_text():
    x = tessera.var("x", shape=(1, 8, 2, 2))
    m = IndexMap.from_func(lambda n, c, h, w: (n, c // 4, h, w, c % 4))
    call = op.layout_transform(x, m)
    assert IndexMap.parse(call.attrs["index_map"]) == m
    assert tessera.ir.structural_equal(
        call, op.layout_transform(x, IndexMap.from_layouts("NCHW", "NCHW4c")))
    x_np = np.arange(32, dtype="float32").reshape(1, 8, 2, 2)
    mod = tessera.IRModule.from_expr(tessera.Function([x], call))
    np.testing.assert_array_equal(tessera.evaluate(mod, x_np), m.apply(x_np))


def test_crop_and_pad_round_trip():
    def pad_then_crop(x):
        padded = op.nn.pad(x, tessera.const(np.float32(0.0)), pad_width=((0, 0), (1, 2), (0, 3)))
        return op.crop(op.nn.relu(padded), begin=(0, 1, 0), sizes=(2, 5, 4), cropped_value=0.0)

    interp, native, x = run_both((2, 5, 4), pad_then_crop)
    np.testing.assert_array_equal(interp, np.maximum(x, 0))
    np.testing.assert_array_equal(native, np.maximum(x, 0))
    interp, native, x = run_both((6, 7), lambda x: op.crop(x, (1, 2), (4, 3)), dtype="int32")
    np.testing.assert_array_equal(interp, x[1:5, 2:5])
    np.testing.assert_array_equal(native, x[1:5, 2:5])


def test_errors_name_the_op():
    x = tessera.var("x", shape=(2, 3, 4))
    mod = tessera.IRModule.from_expr(tessera.Function(
        [x], op.layout_transform(x, "lambda n, c, h, w: (n, c // 4, h, w, c % 4)")))
    with pytest.raises(tessera.TesseraTypeError,
                       match=r"op 'layout_transform': index map `lambda i0, i1, i2, i3: \(i0, "
                             r"i1 // 4, i2, i3, i1 % 4\)` takes 4 indices but data has rank 3"):
        tessera.transform.InferType()(mod)
    with pytest.raises(tessera.TesseraValueError, match="give either index_map or src_layout"):
        op.layout_transform(x, "lambda a, b, c: (a, b, c)", src_layout="NCH", dst_layout="NHC")
    with pytest.raises(tessera.TesseraValueError,
                       match="op 'crop': sizes \\[2, -1, 4\\] is negative"):
        op.crop(x, (0, 0, 0), (2, -1, 4))
    mod = tessera.IRModule.from_expr(tessera.Function([x], op.crop(x, (1, 0, 0), (2, 3, 4))))
    with pytest.raises(tessera.TesseraTypeError, match="op 'crop': the window .* at axis 0"):
        tessera.transform.InferType()(mod)


def test_frozen_layout_is_an_attribute_of_every_builder():
    x = tessera.var("x", shape=(1, 8, 4, 4))
    frozen = op.nn.relu(x, frozen_layout=True)
    assert frozen.attrs["frozen_layout"] is True
    assert "frozen_layout" not in op.nn.relu(x).attrs
    assert "frozen_layout" not in op.nn.relu(x, frozen_layout=False).attrs
    lt = op.layout_transform(frozen, src_layout="NCHW", dst_layout="NCHW4c", frozen_layout=True)
    mod = tessera.IRModule.from_expr(tessera.Function([x], op.crop(lt, (0, 0, 0, 0, 0),
                                                                   (1, 2, 4, 4, 4))))
    text = mod.astext()
    assert "nn.relu(%x, frozen_layout=True)" in text
    assert 'i1 % 4)", frozen_layout=True)' in text
    assert tessera.ir.structural_equal(tessera.parse(text), mod)
    # Through FuseOps into the kernel, and still computing the same.
    fused = tessera.transform.FuseOps()(tessera.transform.InferType()(mod))
    assert fused.astext().count("frozen_layout=True") == 2
    x_np = np.random.default_rng(1).standard_normal((1, 8, 4, 4)).astype("float32")
    np.testing.assert_array_equal(tessera.build(mod, "native")(x=x_np),
                                  nchw_to_nchwc(np.maximum(x_np, 0), 4))
