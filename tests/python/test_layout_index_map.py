"""tessera.layout.IndexMap from Python: parsing and from_func, layouts, shapes, inverses with
their padding predicates (evaluated as Python), composition, identity, apply vs NumPy."""
import itertools

import numpy as np
import pytest

import tessera
from tessera.error import TesseraParseError, TesseraTypeError, TesseraValueError
from tessera.layout import IndexMap


def test_parse_from_func_and_layouts_agree():
    text = IndexMap("lambda n, c, h, w: (n, c // 4, h, w, c % 4)")
    func = IndexMap.from_func(lambda n, c, h, w: (n, c // 4, h, w, c % 4))
    layouts = IndexMap.from_layouts("NCHW", "NCHW4c")
    assert text == func == layouts
    assert hash(text) == hash(func) == hash(layouts)
    assert str(layouts) == "lambda n, c, h, w: (n, c // 4, h, w, c % 4)"
    assert repr(layouts) == "IndexMap('lambda n, c, h, w: (n, c // 4, h, w, c % 4)')"
    assert IndexMap.parse(str(func)) == func
    assert layouts.arity == 4 and layouts.num_outputs == 5
    assert [v.name for v in layouts.initial_indices] == ["n", "c", "h", "w"]
    assert len(layouts.final_indices) == 5
    assert tessera.layout.IndexMap is IndexMap


def test_from_func_spells_arithmetic():
    m = IndexMap.from_func(lambda i, j: ((i + 1) // 4, 2 * j - i % 3, 7 - j, -i + 10))
    for i, j in itertools.product(range(5), range(4)):
        assert m.map_indices([i, j]) == ((i + 1) // 4, 2 * j - i % 3, 7 - j, -i + 10)
    assert IndexMap.from_func(lambda i: i * 2).num_outputs == 1
    assert IndexMap.from_func(lambda: ()) == IndexMap.identity(0)
    with pytest.raises(TesseraValueError, match="multiplies two index expressions"):
        IndexMap.from_func(lambda i, j: (i * j,))
    with pytest.raises(TesseraTypeError, match="with a float"):
        IndexMap.from_func(lambda i: (i // 2.0,))
    with pytest.raises(TesseraTypeError, match="plain positional parameter"):
        IndexMap.from_func(lambda *i: i)
    with pytest.raises(TesseraTypeError, match="no truth value"):
        IndexMap.from_func(lambda i: (i if i else 0,))


def test_shapes_and_inverse_of_a_split():
    m = IndexMap.from_func(lambda i: (i // 4, i % 4))
    assert m.map_shape([4]) == (1, 4)
    assert m.map_shape((16,)) == (4, 4)
    assert m.map_shape(np.array([14])) == (4, 4)
    inv = m.inverse([16])
    assert inv == IndexMap("lambda a, b: (4 * a + b,)")
    assert m.compose(inv).is_identity([16])
    assert m.is_bijective([16]) and not m.is_bijective([14]) and m.is_injective([14])
    with pytest.raises(TesseraValueError, match=r"is not a bijection on shape \[14\]"):
        m.inverse([14])


CASES = [
    ("right_padding", "lambda i: (i // 4, i % 4)", (15,), (4, 4)),
    ("left_padding", "lambda i: ((i + 1) // 4, (i + 1) % 4)", (15,), (4, 4)),
    ("left_and_right_padding", "lambda i: ((i + 1) // 4, (i + 1) % 4)", (14,), (4, 4)),
    ("2d_padding", "lambda i, j: ((i + 1) // 4, (j + 5) // 8, (i + 1) % 4, (j + 5) % 8)",
     (14, 31), (4, 5, 4, 8)),
    ("multiple_right_padding_transpose", "lambda i: ((i // 4) % 8, i // 32, i % 4)", (116,),
     (8, 4, 4)),
    ("outer_loop_extent_one", "lambda i: (i // 4, i % 4)", (3,), (1, 4)),
]


@pytest.mark.parametrize("name,text,shape,post", CASES, ids=[c[0] for c in CASES])
def test_non_surjective_inverse(name, text, shape, post):
    m = IndexMap(text)
    assert m.map_shape(shape) == post
    inv, predicate = m.non_surjective_inverse(shape)
    names = [v.name for v in inv.initial_indices]
    image = {m.map_indices(i): i for i in itertools.product(*map(range, shape))}
    for o in itertools.product(*map(range, post)):
        pad = eval(predicate, {}, dict(zip(names, o)))  # the predicate is Python text
        assert pad == (o not in image), (o, predicate)
        if not pad:
            assert inv.map_indices(o) == image[o]


def test_inverse_keeps_unit_axes():
    m = IndexMap("lambda i0, i1, i2, i3: (i3 // 32, i2 // 2, i2 % 2, i3 % 32)")
    shape = (1, 1, 64, 64)
    inv = m.inverse(shape)
    post = m.map_shape(shape)
    assert inv.equal_on(IndexMap("lambda a, b, c, d: (0, 0, c + 2 * b, d + 32 * a)"), post)
    assert inv.compose(m).is_identity(post)


def test_composition_identity_and_permutations():
    to16 = IndexMap.from_layouts("NCHW", "NCHW16c")
    from16 = IndexMap.from_layouts("NCHW16c", "NCHW")
    assert to16.compose(from16).is_identity([1, 64, 8, 8])
    nhwc, nchw = IndexMap.from_layouts("NCHW", "NHWC"), IndexMap.from_layouts("NHWC", "NCHW")
    assert nhwc.compose(nchw).is_identity([1, 3, 8, 8])
    assert nhwc.is_permutation() and nhwc.as_permutation() == (0, 2, 3, 1)
    assert nhwc == IndexMap.permutation([0, 2, 3, 1])
    assert to16.as_permutation() is None and not to16.is_permutation()
    swap = IndexMap.permutation((1, 0))
    assert not swap.is_identity([8, 8])  # a square shape does not make it the identity
    assert swap.compose(swap).is_identity([8, 8])
    assert IndexMap("lambda c: (c % 64,)").equal_on(IndexMap.identity(1), [64])
    assert not IndexMap("lambda c: (c % 64,)").equal_on(IndexMap.identity(1), [65])
    assert {to16, IndexMap(str(to16)), nhwc} == {to16, nhwc}


def reference_apply(m, x, pad):
    out = np.full(m.map_shape(x.shape), pad, dtype=x.dtype)
    for i in itertools.product(*map(range, x.shape)):
        out[m.map_indices(i)] = x[i]
    return out


@pytest.mark.parametrize("text,shape,dtype", [
    ("lambda i: (i // 4, i % 4)", (16,), "float32"),
    ("lambda a, b, c, d: (a, c, d, b)", (2, 3, 4, 5), "int64"),
    ("lambda i0, i1, i2, i3: (i3 // 32, i0, i2 // 8, (i3 % 32) // 16, i1, i2 % 8, i3 % 16)",
     (3, 3, 64, 64), "float32"),
    ("lambda i, j: ((i + 1) // 4, j, (i + 1) % 4)", (6, 3), "float16"),
    ("lambda i, j: (j // 3, i, j % 3)", (2, 7), "uint8"),
])
def test_apply_matches_numpy(text, shape, dtype):
    m = IndexMap(text)
    x = (np.arange(np.prod(shape)) % 251).astype(dtype).reshape(shape)
    y = m.apply(x, pad_value=-1 if dtype != "uint8" else 9)
    want = reference_apply(m, x, -1 if dtype != "uint8" else 9)
    assert y.dtype == x.dtype and y.shape == want.shape
    np.testing.assert_array_equal(y, want)
    if m.is_bijective(shape):
        np.testing.assert_array_equal(m.inverse(shape).apply(y), x)


def test_apply_takes_tessera_arrays_and_non_contiguous_input():
    m = IndexMap.from_layouts("NCHW", "NHWC")
    x = np.arange(2 * 3 * 4 * 5, dtype="float32").reshape(2, 3, 4, 5)
    np.testing.assert_array_equal(m.apply(tessera.nd.array(x)), x.transpose(0, 2, 3, 1))
    xt = np.asfortranarray(x)
    np.testing.assert_array_equal(m.apply(xt), x.transpose(0, 2, 3, 1))


def test_errors():
    with pytest.raises(TesseraParseError, match="at position"):
        IndexMap("lambda i: (i ** 2)")
    with pytest.raises(TesseraParseError, match="unknown variable 'k'"):
        IndexMap.parse("lambda i: (k,)")
    with pytest.raises(TesseraValueError, match="is not an affine split/fuse"):
        IndexMap("lambda i, j: (i * j,)")
    with pytest.raises(TesseraTypeError, match=r"takes 1 indices but shape \[4, 4\] has rank 2"):
        IndexMap("lambda i: (i,)").map_shape([4, 4])
    with pytest.raises(TesseraValueError, match=r"is not injective on shape \[16\]"):
        IndexMap("lambda i: (i // 4,)").non_surjective_inverse([16])
    with pytest.raises(TesseraValueError, match="without its primal axis K"):
        IndexMap.from_layouts("NCHW", "NCHW16k")
    with pytest.raises(TesseraValueError, match="not a permutation"):
        IndexMap.permutation([0, 0])
    with pytest.raises(TesseraValueError, match="cannot compose"):
        IndexMap.identity(2).compose(IndexMap.identity(3))
    with pytest.raises(TesseraTypeError, match="expected a sequence of ints"):
        IndexMap.identity(1).map_shape(4)
    with pytest.raises(TesseraTypeError, match=r"shape\[0\]: expected an int"):
        IndexMap.identity(1).map_shape(["4"])
    with pytest.raises(TesseraTypeError, match="takes 2 indices but the array is"):
        IndexMap.identity(2).apply(np.zeros(3, "float32"))
    assert IndexMap.identity(1) != "lambda i0: (i0,)"
