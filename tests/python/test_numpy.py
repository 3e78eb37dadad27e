"""NumPy in and out of the reference interpreter: zero-copy where the layout allows,
results as arrays (tuples for tuple results), and input checking that names the input."""
import gc

import numpy as np
import pytest

import tessera
from tessera import op

from helpers import add_function


def identity_module(shape=(2, 3), dtype="float32"):
    x = tessera.var("x", shape=shape, dtype=dtype)
    return tessera.IRModule.from_expr(tessera.Function([x], x))


def test_evaluate_positional_and_keyword():
    mod = tessera.IRModule.from_expr(add_function((2, 3)))
    x = np.arange(6, dtype="float32").reshape(2, 3)
    y = np.full((2, 3), 0.5, dtype="float32")
    out = tessera.evaluate(mod, x, y)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32 and out.shape == (2, 3)
    np.testing.assert_array_equal(out, x + y)
    np.testing.assert_array_equal(tessera.evaluate(mod, x, y=y), x + y)
    np.testing.assert_array_equal(tessera.run(mod, y=y, x=x), x + y)
    # A Function is accepted as its own @main.
    np.testing.assert_array_equal(tessera.evaluate(add_function((2, 3)), x, y), x + y)


def test_input_passed_through_shares_memory():
    x = np.arange(6, dtype="float32").reshape(2, 3)
    out = tessera.run(identity_module(), x=x)
    assert np.shares_memory(out, x)
    np.testing.assert_array_equal(out, x)


def test_output_outlives_module_and_result():
    mod = tessera.IRModule.from_expr(add_function((1, 4)))
    x = np.ones((1, 4), dtype="float32")
    out = tessera.evaluate(mod, x, x)
    del mod
    gc.collect()
    np.testing.assert_array_equal(out, np.full((1, 4), 2, dtype="float32"))
    assert out.flags.writeable and out.flags.c_contiguous
    out[0, 0] = 7  # the result owns its memory
    assert out[0, 0] == 7


def test_input_kept_alive_while_borrowed():
    out = tessera.run(identity_module((3,)), x=np.array([1, 2, 3], dtype="float32"))
    gc.collect()
    np.testing.assert_array_equal(out, [1, 2, 3])


def test_non_contiguous_inputs_are_copied():
    base = np.arange(12, dtype="float32").reshape(3, 4)
    view = base[:, :3].T  # (3, 3), not C-contiguous
    mod = identity_module((3, 3))
    out = tessera.run(mod, x=view)
    np.testing.assert_array_equal(out, view)
    assert not np.shares_memory(out, base)
    swapped = np.arange(9, dtype=">f4").reshape(3, 3)  # big endian: converted, not shared
    out = tessera.run(mod, x=swapped)
    assert out.dtype == np.dtype("float32") and not np.shares_memory(out, swapped)
    np.testing.assert_array_equal(out, swapped)


def test_python_values_convert_to_parameter_dtype():
    mod = identity_module((2,), "int32")
    out = tessera.run(mod, x=[4, 5])
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [4, 5])


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int32", "int64",
                                   "uint8", "bool"])
def test_dtypes_round_trip(dtype):
    data = (np.arange(6) % 2 if dtype == "bool" else np.arange(6)).astype(dtype).reshape(2, 3)
    out = tessera.run(identity_module((2, 3), dtype), x=data)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, data)
    c = tessera.const(data)
    assert c.dtype == dtype
    np.testing.assert_array_equal(c.data, data)


def test_scalar_tensors():
    x = tessera.var("x", shape=(), dtype="float32")
    mod = tessera.IRModule.from_expr(tessera.Function([x], op.add(x, tessera.const(1.0))))
    out = tessera.run(mod, x=np.float32(2.0))
    assert out.shape == () and out == 3.0


def test_tuple_results_become_tuples():
    x = tessera.var("x", shape=(2,))
    body = tessera.ir.Tuple([x, op.add(x, x)])
    mod = tessera.IRModule.from_expr(tessera.Function([x], body))
    data = np.array([1, 2], dtype="float32")
    first, second = tessera.run(mod, x=data)
    np.testing.assert_array_equal(first, data)
    np.testing.assert_array_equal(second, 2 * data)


def test_tuple_parameter():
    p = tessera.var("p", tessera.TupleType([tessera.TensorType((2,)), tessera.TensorType((2,))]))
    mod = tessera.IRModule.from_expr(tessera.Function([p], op.add(p[0], p[1])))
    a = np.array([1, 2], dtype="float32")
    np.testing.assert_array_equal(tessera.run(mod, p=(a, a)), 2 * a)
    with pytest.raises(ValueError, match="input 'p': expected a tuple of 2 values, got 1"):
        tessera.run(mod, p=(a,))


def test_input_errors_name_the_input():
    mod = tessera.IRModule.from_expr(add_function((2, 3)))
    good = np.zeros((2, 3), dtype="float32")
    with pytest.raises(tessera.TesseraTypeError, match="input 'y': expected dtype float32, got float64"):
        tessera.run(mod, x=good, y=np.zeros((2, 3)))
    # The same class as the compiled executable raises for the same mistake.
    with pytest.raises(tessera.TesseraTypeError,
                       match=r"input 'x': expected shape \(2, 3\), got \(3, 2\)"):
        tessera.run(mod, x=np.zeros((3, 2), dtype="float32"), y=good)
    ex = tessera.build(mod, target="native -num_threads=1")
    with pytest.raises(tessera.TesseraTypeError, match="input 'x'"):
        ex(x=np.zeros((3, 2), dtype="float32"), y=good)
    # A missing or unknown input name is a value error, in the interpreter as in the
    # executable.
    with pytest.raises(tessera.TesseraValueError, match="missing input"):
        tessera.run(mod, x=good)
    with pytest.raises(tessera.TesseraValueError, match="missing input"):
        ex(x=good)
    with pytest.raises(tessera.TesseraValueError, match="unknown input 'z'; @main's inputs are: x, y"):
        tessera.run(mod, x=good, y=good, z=good)
    with pytest.raises(tessera.TesseraValueError, match="unknown input 'z'"):
        ex(x=good, y=good, z=good)
    with pytest.raises(TypeError, match="input 'x' given more than once"):
        tessera.evaluate(mod, good, good, x=good)
    with pytest.raises(TypeError, match="takes 2 input"):
        tessera.evaluate(mod, good, good, good)
    with pytest.raises(TypeError, match="int16 is not supported"):
        tessera.run(tessera.IRModule.from_expr(tessera.Function([tessera.var("u")], tessera.var("w"))),
                    u=np.zeros(2, dtype=np.int16))


def test_npy_io(tmp_path):
    data = np.arange(6, dtype="int64").reshape(3, 2)
    path = tmp_path / "a.npy"
    tessera.runtime.write_npy(path, data)
    np.testing.assert_array_equal(np.load(path), data)
    np.testing.assert_array_equal(tessera.runtime.read_npy(path), data)
    with pytest.raises(tessera.TesseraError, match="missing.npy"):
        tessera.runtime.read_npy(tmp_path / "missing.npy")
