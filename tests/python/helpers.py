"""Shared helpers for the tessera Python tests: small modules and an expression rewriter."""
import pytest

import tessera
from tessera import op


# dense, relu, abs, softmax: a chain native and the libraries can all run (Collage tests).
COLLAGE_CHAIN = """
def @main(%x: Tensor[(8, 16), float32], %w: Tensor[(32, 16), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = nn.relu(%0);
  %2 = abs(%1);
  nn.softmax(%2)
}
"""


def add_function(shape=(1, 3), dtype="float32"):
    """fn (%x, %y) { add(%x, %y) }."""
    x = tessera.var("x", shape=shape, dtype=dtype)
    y = tessera.var("y", shape=shape, dtype=dtype)
    return tessera.Function([x, y], op.add(x, y))


def relu_function(shape=(1, 3)):
    """fn (%a) { nn.relu(%a) }."""
    a = tessera.var("a", shape=shape)
    return tessera.Function([a], op.nn.relu(a))


def add_module(shape=(1, 3)):
    return tessera.IRModule.from_expr(add_function(shape))


def substitute(expr, mapping):
    """Rebuilds ``expr`` with variables replaced per ``mapping`` (Var -> Expr); handles
    calls, tuples and projections, which is all the tests build."""
    if isinstance(expr, tessera.ir.Var):
        return mapping.get(expr, expr)
    if isinstance(expr, tessera.ir.Call):
        args = [substitute(a, mapping) for a in expr.args]
        return tessera.ir.Call(expr.op, args, expr.attrs, expr.type_args)
    if isinstance(expr, tessera.ir.Tuple):
        return tessera.ir.Tuple([substitute(f, mapping) for f in expr.fields])
    if isinstance(expr, tessera.ir.TupleGetItem):
        return tessera.ir.TupleGetItem(substitute(expr.tuple_value, mapping), expr.index)
    return expr


def double_params(func):
    """The function with every use of a parameter x replaced by x + x."""
    mapping = {p: p + p for p in func.params}
    return tessera.Function(func.params, substitute(func.body, mapping), None, func.attrs)


@pytest.fixture
def events():
    """A list instruments append event strings to."""
    return []
