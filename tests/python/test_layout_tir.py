"""PrimFunc layouts from Python: tessera.layout.transform_layout, transform_block_layout and
suggest_layout_transforms checked against NumPy (interpreter and native build), and the
HoistLayoutRewrite pass folding a weight's layout rewrite into the constant."""
import numpy as np
import pytest

import tessera
from tessera.error import TesseraNotFoundError, TesseraTypeError, TesseraValueError
from tessera.ir import TensorType
from tessera.layout import (IndexMap, suggest_layout_transforms, transform_block_layout,
                            transform_layout)

SUM_OVER_H = """
primfn @f(%A: Buffer[(2, 8, 3, 5), float32]) -> (%B: Buffer[(2, 8, 5), float32]) {
  for %n: int32 in 0 +: 2 { for %c: int32 in 0 +: 8 { for %h: int32 in 0 +: 3 {
  for %w: int32 in 0 +: 5 {
    block "sum"(%vn: int32 in 0 +: 2 spatial = %n, %vc: int32 in 0 +: 8 spatial = %c,
                %vh: int32 in 0 +: 3 reduce = %h, %vw: int32 in 0 +: 5 spatial = %w)
        reads(%A[%vn, %vc, %vh, %vw]) writes(%B[%vn, %vc, %vw]) {
      init { %B[%vn, %vc, %vw] = 0f; }
      %B[%vn, %vc, %vw] = %B[%vn, %vc, %vw] + %A[%vn, %vc, %vh, %vw];
    }
  } } } }
}
"""

SCALE_C6 = """
primfn @f(%X: Buffer[(1, 6, 2, 2), float32]) -> (%Y: Buffer[(1, 6, 2, 2), float32]) {
  for %n: int32 in 0 +: 1 { for %c: int32 in 0 +: 6 { for %h: int32 in 0 +: 2 {
  for %w: int32 in 0 +: 2 {
    block "scale"(%vn: int32 in 0 +: 1 spatial = %n, %vc: int32 in 0 +: 6 spatial = %c,
                  %vh: int32 in 0 +: 2 spatial = %h, %vw: int32 in 0 +: 2 spatial = %w)
        reads(%X[%vn, %vc, %vh, %vw]) writes(%Y[%vn, %vc, %vh, %vw]) {
      %Y[%vn, %vc, %vh, %vw] = %X[%vn, %vc, %vh, %vw] * 2f;
    }
  } } } }
}
"""


def prim_func(text):
    return tessera.parse(text)["f"]


def calling(func, in_shape, out_shape):
    """A module whose @main calls PrimFunc `func` on one input."""
    x = tessera.var("x", shape=in_shape)
    main = tessera.Function([x], tessera.op.call_tir("f", [x], TensorType(out_shape)))
    return tessera.IRModule({"main": main, "f": func})


def test_reduction_reads_nhwc_and_iterates_in_its_order():
    f = prim_func(SUM_OVER_H)
    nhwc = IndexMap.from_layouts("NCHW", "NHWC")
    g = transform_layout(f, "A", nhwc)
    assert transform_layout(f, 0, nhwc).script("f") == g.script("f")
    assert [tuple(b.shape) for b in g.params] == [(2, 3, 5, 8), (2, 8, 5)]
    assert "%A[%vn, %vh, %vw, %vc]" in g.script("f")
    h = transform_block_layout(g, "sum", IndexMap.from_func(lambda n, c, h, w: (n, h, w, c)))
    loops, body = [], h.body
    while isinstance(body, tessera.tir.For):
        loops.append(body.loop_var.name)
        body = body.body
    assert loops == ["n", "h", "w", "c"]

    a = np.random.default_rng(0).standard_normal((2, 8, 3, 5)).astype(np.float32)
    want = a.sum(axis=2)
    np.testing.assert_allclose(tessera.run(calling(f, a.shape, want.shape), x=a), want, rtol=1e-5)
    a_nhwc = np.ascontiguousarray(a.transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(nhwc.apply(a), a_nhwc)
    for func in (g, h):
        mod = calling(func, a_nhwc.shape, want.shape)
        np.testing.assert_allclose(tessera.run(mod, x=a_nhwc), want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(tessera.build(mod, "native -num_threads=1")(x=a_nhwc), want,
                                   rtol=1e-5, atol=1e-6)


def test_padding_positions_get_the_pad_value():
    f = prim_func(SCALE_C6)
    blocked = IndexMap.from_layouts("NCHW", "NCHW4c")  # C = 6 pads to 8
    g = transform_layout(transform_layout(f, "X", blocked), "Y", blocked, pad_value=-1.0)
    assert 'block "Y_pad"' in g.script("f") and 'block "X_pad"' not in g.script("f")
    x = np.random.default_rng(1).standard_normal((1, 6, 2, 2)).astype(np.float32)
    want = blocked.apply(2 * x, pad_value=-1.0)
    xb = blocked.apply(x, pad_value=123.0)  # the input's padding lanes are never read
    mod = calling(g, xb.shape, want.shape)
    np.testing.assert_array_equal(tessera.run(mod, x=xb), want)
    np.testing.assert_array_equal(tessera.build(mod, "native -num_threads=1")(x=xb), want)


def test_suggestions_per_parameter():
    f = prim_func(SUM_OVER_H)
    maps = suggest_layout_transforms(f, [IndexMap("lambda n, c, w: (n, c // 4, w, c % 4)")])
    assert len(maps) == 2
    assert maps[0].equal_on(IndexMap("lambda n, c, h, w: (n, c // 4, h, w, c % 4)"), (2, 8, 3, 5))
    assert maps[1] == IndexMap("lambda n, c, w: (n, c // 4, w, c % 4)")
    assert suggest_layout_transforms(f, [None]) == [None, None]
    assert suggest_layout_transforms(f, []) == [None, None]
    with pytest.raises(TesseraValueError, match="2 maps given but the PrimFunc has 1 outputs"):
        suggest_layout_transforms(f, [None, None])
    with pytest.raises(TesseraTypeError, match=r"index_maps\[0\] must be an IndexMap or None"):
        suggest_layout_transforms(f, ["lambda i: (i,)"])


def test_mistakes_are_clear_errors():
    f = prim_func(SUM_OVER_H)
    with pytest.raises(TesseraTypeError, match="takes 2 indices but buffer 'A' has rank 4"):
        transform_layout(f, "A", IndexMap("lambda i, j: (j, i)"))
    with pytest.raises(TesseraNotFoundError, match=r"no buffer named 'Q' \(buffers: A, B\)"):
        transform_layout(f, "Q", IndexMap.identity(4))
    with pytest.raises(TesseraValueError, match="parameter index 7 is out of range"):
        transform_layout(f, 7, IndexMap.identity(4))
    with pytest.raises(TesseraTypeError, match="parameter index .int. or a buffer name"):
        transform_layout(f, 1.5, IndexMap.identity(4))
    with pytest.raises(TesseraNotFoundError, match=r"no block named 'x' \(blocks: 'sum'\)"):
        transform_block_layout(f, "x", IndexMap.identity(4))
    with pytest.raises(TesseraValueError, match="mixes spatial and reduce variables"):
        transform_block_layout(f, "sum", IndexMap("lambda n, c, h, w: (n, c * 3 + h, w)"))
    with pytest.raises(TesseraTypeError, match="expected a PrimFunc"):
        transform_block_layout(tessera.parse("def @main() { 1f }")["main"], "sum",
                               IndexMap.identity(4))


MATMUL = """
primfn @matmul(%A: Buffer[(16, 16), float32], %B: Buffer[(16, 16), float32]) -> (%C: Buffer[(16, 16), float32]) {
  allocate %B_: Buffer[(16, 4, 4), float32] {
    for %i0: int32 in 0 +: 16 { for %i1: int32 in 0 +: 16 {
      block "B_rewrite"(%v0: int32 in 0 +: 16 spatial = %i0, %v1: int32 in 0 +: 16 spatial = %i1)
          reads(%B[%v0, %v1]) writes(%B_[%v1, floordiv(%v0, 4), floormod(%v0, 4)]) {
        %B_[%v1, floordiv(%v0, 4), floormod(%v0, 4)] = %B[%v0, %v1];
      }
    } }
    for %i: int32 in 0 +: 16 { for %j: int32 in 0 +: 16 { for %k: int32 in 0 +: 16 {
      block "C"(%vi: int32 in 0 +: 16 spatial = %i, %vj: int32 in 0 +: 16 spatial = %j,
                %vk: int32 in 0 +: 16 reduce = %k)
          reads(%A[%vi, %vk], %B_[%vj, floordiv(%vk, 4), floormod(%vk, 4)]) writes(%C[%vi, %vj]) {
        init { %C[%vi, %vj] = 0f; }
        %C[%vi, %vj] = %C[%vi, %vj] + %A[%vi, %vk] * %B_[%vj, floordiv(%vk, 4), floormod(%vk, 4)];
      }
    } } }
  }
}
"""


def test_hoist_layout_rewrite_folds_a_constant_weight():
    rng = np.random.default_rng(2)
    w = rng.standard_normal((16, 16)).astype(np.float32)
    x = tessera.var("x", shape=(16, 16))
    main = tessera.Function([x], tessera.op.call_tir(
        "matmul", [x, tessera.const(w)], TensorType((16, 16))))
    mod = tessera.IRModule({"main": main, "matmul": tessera.parse(MATMUL)["matmul"]})
    hoisted = tessera.transform.HoistLayoutRewrite()(mod)
    assert [tuple(b.shape) for b in hoisted["matmul"].params] == [(16, 16), (16, 4, 4), (16, 16)]
    assert "layout_transform" in hoisted.astext()
    folded = tessera.transform.SimplifyLayoutTransforms()(hoisted)
    assert "layout_transform" not in folded.astext()
    xs = rng.standard_normal((16, 16)).astype(np.float32)
    np.testing.assert_allclose(tessera.run(folded, x=xs), xs @ w, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(tessera.build(folded, "native -num_threads=1")(x=xs), xs @ w,
                               rtol=1e-4, atol=1e-4)
    # A weight given at run time gets the lifted rewrite kernel instead.
    wv = tessera.var("w", shape=(16, 16))
    main = tessera.Function([x, wv], tessera.op.call_tir("matmul", [x, wv], TensorType((16, 16))))
    mod = tessera.IRModule({"main": main, "matmul": tessera.parse(MATMUL)["matmul"]})
    hoisted = tessera.transform.get_pass("HoistLayoutRewrite")(mod)
    assert "call_tir(@matmul_layout_rewrite, (%w,), Tensor[(16, 4, 4), float32])" in hoisted.astext()
    np.testing.assert_allclose(tessera.run(hoisted, x=xs, w=w), xs @ w, rtol=1e-4, atol=1e-4)
