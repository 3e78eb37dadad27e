"""Op builders generated from the registry: every op has one with the schema's signature,
and a small well-typed call of each infers the expected type."""
import inspect
import keyword

import numpy as np
import pytest

import tessera
from tessera import op
from tessera.ir import TensorType as TT
from tessera.ir import TupleType

F32 = "float32"


def builder_of(name):
    target = op
    *prefix, short = name.split(".")
    for part in prefix:
        target = getattr(target, part)
    return getattr(target, short + "_" if keyword.iskeyword(short) else short)


def test_every_op_has_a_builder_with_the_schema_signature():
    names = op.list_ops()
    assert "add" in names and "nn.conv2d" in names and names == sorted(names)
    for name in names:
        schema = op.get_schema(name)
        builder = builder_of(name)
        assert builder.schema == schema
        params = inspect.signature(builder).parameters
        if name == "call_tir":
            assert list(params) == ["func", "args", "out_type"]
            continue
        expected = list(schema.inputs) + (["more_inputs"] if schema.variadic else [])
        expected += [a.name for a in schema.attrs] + ["frozen_layout"]
        assert sorted(params) == sorted(expected), name
        assert params["frozen_layout"].kind == inspect.Parameter.KEYWORD_ONLY, name
        assert params["frozen_layout"].default is False, name
        assert list(params)[:len(schema.inputs)] == list(schema.inputs), name
        for attr in schema.attrs:
            p = params[attr.name]
            if attr.required:
                assert p.default is inspect.Parameter.empty, (name, attr.name)
            else:
                assert p.default == attr.default, (name, attr.name)
        assert schema.pattern in ("elemwise", "broadcast", "injective", "comm_reduce",
                                  "out_elemwise_fusable", "tuple", "opaque")
        assert builder.__doc__ and name in builder.__doc__


def test_schema_details():
    conv = op.get_schema("nn.conv2d")
    assert conv.inputs == ("data", "weight")
    assert conv.pattern == "out_elemwise_fusable" and conv.pattern_value == 4
    padding = next(a for a in conv.attrs if a.name == "padding")
    assert padding.type == "int_array" and padding.default == (0, 0) and padding.description
    with pytest.raises(tessera.TesseraNotFoundError, match="unknown op 'nn.nope'"):
        op.get_schema("nn.nope")


class Vars:
    """Creates typed variables and remembers them as the function's parameters."""

    def __init__(self):
        self.params = []

    def __call__(self, shape, dtype=F32):
        v = tessera.var(f"v{len(self.params)}", shape=shape, dtype=dtype)
        self.params.append(v)
        return v


def unary(name):
    return lambda v: (builder_of(name)(v((2, 3))), TT((2, 3)))


def binary(name, out_dtype=F32):
    return lambda v: (builder_of(name)(v((2, 3)), v((3,))), TT((2, 3), out_dtype))


def reduce_case(name):
    return lambda v: (builder_of(name)(v((2, 3, 4)), axis=1, keepdims=True), TT((2, 1, 4)))


NCHW = (1, 4, 8, 8)

CASES = {
    **{n: unary(n) for n in ["abs", "ceil", "copy", "erf", "exp", "floor", "log", "negative",
                             "round", "rsqrt", "sigmoid", "sqrt", "tanh", "nn.relu", "nn.gelu",
                             "nn.leaky_relu", "nn.softmax", "nn.log_softmax"]},
    **{n: binary(n) for n in ["add", "subtract", "multiply", "divide", "maximum", "minimum",
                              "power"]},
    **{n: binary(n, "bool") for n in ["equal", "not_equal", "less", "less_equal", "greater",
                                      "greater_equal"]},
    **{n: reduce_case(n) for n in ["sum", "mean", "max", "min"]},
    "cast": lambda v: (op.cast(v((2, 3)), "int32"), TT((2, 3), "int32")),
    "clip": lambda v: (op.clip(v((2, 3)), 0.0, 6), TT((2, 3))),
    "concatenate": lambda v: (op.concatenate([v((2, 3)), v((2, 5))], axis=1), TT((2, 8))),
    "expand_dims": lambda v: (op.expand_dims(v((2, 3)), 1), TT((2, 1, 3))),
    "full": lambda v: (op.full(tessera.const(1.5), shape=(2, 3)), TT((2, 3))),
    "crop": lambda v: (op.crop(v((4, 5)), begin=(1, 2), sizes=(2, 3)), TT((2, 3))),
    "layout_transform": lambda v: (op.layout_transform(v(NCHW), src_layout="NCHW",
                                                       dst_layout="NHWC"), TT((1, 8, 8, 4))),
    "ones": lambda v: (op.ones((2, 3), "float32"), TT((2, 3))),
    "zeros": lambda v: (op.zeros(shape=(2, 3), dtype=np.int32), TT((2, 3), "int32")),
    "reshape": lambda v: (op.reshape(v((2, 3)), newshape=(3, 2)), TT((3, 2))),
    "split": lambda v: (op.split(v((6, 4)), 3), TupleType([TT((2, 4))] * 3)),
    "squeeze": lambda v: (op.squeeze(v((1, 3, 1))), TT((3,))),
    "strided_slice": lambda v: (op.strided_slice(v((4, 5)), begin=(1, 0), end=(3, 5)), TT((2, 5))),
    "take": lambda v: (op.take(v((4, 5)), v((2,), "int32"), axis=0), TT((2, 5))),
    "transpose": lambda v: (op.transpose(v((2, 3, 4)), axes=(2, 0, 1)), TT((4, 2, 3))),
    "where": lambda v: (op.where(v((2, 3), "bool"), v((2, 3)), v((2, 3))), TT((2, 3))),
    "nn.adaptive_avg_pool2d": lambda v: (op.nn.adaptive_avg_pool2d(v(NCHW), output_size=(2, 2)),
                                         TT((1, 4, 2, 2))),
    "nn.avg_pool2d": lambda v: (op.nn.avg_pool2d(v(NCHW), pool_size=(2, 2), strides=(2, 2)),
                                TT((1, 4, 4, 4))),
    "nn.max_pool2d": lambda v: (op.nn.max_pool2d(v(NCHW), (2, 2), (2, 2)), TT((1, 4, 4, 4))),
    "nn.global_avg_pool2d": lambda v: (op.nn.global_avg_pool2d(v(NCHW)), TT((1, 4, 1, 1))),
    "nn.global_max_pool2d": lambda v: (op.nn.global_max_pool2d(v(NCHW)), TT((1, 4, 1, 1))),
    "nn.batch_flatten": lambda v: (op.nn.batch_flatten(v(NCHW)), TT((1, 256))),
    "nn.batch_matmul": lambda v: (op.nn.batch_matmul(v((2, 3, 4)), v((2, 5, 4))), TT((2, 3, 5))),
    "nn.batch_norm": lambda v: (op.nn.batch_norm(v(NCHW), v((4,)), v((4,)), v((4,)), v((4,))),
                                TupleType([TT(NCHW), TT((4,)), TT((4,))])),
    "nn.bias_add": lambda v: (op.nn.bias_add(v(NCHW), v((4,))), TT(NCHW)),
    "nn.conv2d": lambda v: (op.nn.conv2d(v((1, 3, 8, 8)), v((4, 3, 3, 3)), padding=(1, 1),
                                         channels=4, kernel_size=(3, 3)), TT(NCHW)),
    "nn.dense": lambda v: (op.nn.dense(v((2, 3)), v((5, 3)), units=5), TT((2, 5))),
    "nn.matmul": lambda v: (op.nn.matmul(v((2, 3)), v((3, 5))), TT((2, 5))),
    "nn.layer_norm": lambda v: (op.nn.layer_norm(v((2, 3)), v((3,)), v((3,))), TT((2, 3))),
    "nn.pad": lambda v: (op.nn.pad(v(NCHW), tessera.const(0.0),
                                   pad_width=((0, 0), (0, 0), (1, 1), (1, 1))), TT((1, 4, 10, 10))),
}


def infer(body, params):
    mod = tessera.IRModule.from_expr(tessera.Function(params, body))
    return tessera.transform.InferType()(mod)["main"].body.checked_type


@pytest.mark.parametrize("name", sorted(CASES))
def test_builder_infers_expected_type(name):
    if name not in op.list_ops():
        pytest.skip(f"op {name} is not registered in this build")
    v = Vars()
    call, expected = CASES[name](v)
    assert isinstance(call, tessera.ir.Call) and call.op.name == name
    assert infer(call, v.params) == expected


def test_ops_without_a_case_still_build_and_infer():
    """Ops added later than this table: a default call either infers or reports a
    TesseraError (never a crash)."""
    for name in op.list_ops():
        schema = op.get_schema(name)
        if name in CASES or name == "call_tir" or any(a.required for a in schema.attrs):
            continue
        v = Vars()
        call = builder_of(name)(*[v(NCHW) for _ in schema.inputs])
        try:
            assert infer(call, v.params) is not None
        except tessera.TesseraError:
            pass


def test_positional_attributes_and_tuple_inputs():
    x = tessera.var("x", shape=NCHW)
    w = tessera.var("w", shape=(4, 4, 3, 3))
    call = op.nn.conv2d(x, w, (1, 1), (1, 1))
    assert call.attrs["strides"] == (1, 1) and call.attrs["padding"] == (1, 1, 1, 1)
    a = tessera.var("a", shape=(1, 2))
    cat = op.concatenate((a, a), axis=1)
    assert isinstance(cat.args[0], tessera.ir.Tuple) and len(cat.args[0].fields) == 2
    scaled = op.multiply(a, 2.0)
    assert isinstance(scaled.args[1], tessera.ir.Constant) and scaled.args[1].dtype == "float32"
    arr = op.add(a, np.ones((1, 2), dtype="float32"))
    assert arr.args[1].shape == (1, 2)


def test_bad_arguments_raise_mapped_errors():
    x = tessera.var("x", shape=NCHW)
    w = tessera.var("w", shape=(4, 4, 3, 3))
    with pytest.raises(tessera.TesseraValueError, match="op 'nn.conv2d': attribute 'padding' must be"):
        op.nn.conv2d(x, w, padding="same")
    with pytest.raises(ValueError, match="attribute 'groups'"):
        op.nn.conv2d(x, w, groups=[1, 2])
    # Builders are ordinary functions: a wrong argument list is Python's own TypeError.
    with pytest.raises(TypeError, match=r"conv2d\(\) got an unexpected keyword argument 'pads'"):
        op.nn.conv2d(x, w, pads=1)
    with pytest.raises(TypeError, match=r"add\(\) missing 1 required positional argument: 'rhs'"):
        op.add(x)
    with pytest.raises(TypeError, match="input 'rhs' must be an expression, got a dict"):
        op.add(x, {})
    with pytest.raises(TypeError, match="cannot convert a Python object"):
        op.nn.conv2d(x, w, padding=object())
    with pytest.raises(tessera.TesseraNotFoundError, match="unknown op"):
        tessera.ir.Call(tessera.ir.Op.get("no.such"), [x])


def test_type_errors_name_the_op():
    a = tessera.var("a", shape=(1, 3))
    b = tessera.var("b", shape=(4,))
    with pytest.raises(tessera.TesseraTypeError, match="op 'add'") as info:
        infer(op.add(a, b), [a, b])
    assert isinstance(info.value, TypeError)


def test_call_tir_builder_signature():
    assert list(inspect.signature(op.call_tir).parameters) == ["func", "args", "out_type"]
    with pytest.raises(TypeError, match="out_type must be a Type"):
        op.call_tir("f", [], "float32")
    call = op.call_tir("f", [tessera.var("x", shape=(2,))], TT((2,)))
    assert call.op.name == "call_tir" and call.type_args == [TT((2,))]
    assert isinstance(call.args[0], tessera.ir.GlobalVar) and call.args[0].name_hint == "f"
