"""Builders for every registered op, one function each (written from the C++ op registry
by scripts/gen_python_api.py, so help() and completion see them).

``tessera.op.add(a, b)``, ``tessera.op.nn.conv2d(x, w, padding=(1, 1), channels=64)``,
``tessera.op.concatenate([a, b], axis=1)``. Op names and attribute names follow TVM Relay;
attributes may be given positionally after the inputs or as keywords. A list or tuple
argument becomes a Tuple expression; NumPy arrays and Python scalars become constants.

``list_ops()`` names every op and ``get_schema(name)`` describes one (inputs, attributes
with type, default and description, pattern kind).
"""
from ._gen import AttrSchema, OpSchema, call_tir, get_schema, list_ops, populate  # noqa: F401
from ._ops import *  # noqa: F401,F403  (also imports the namespaces: nn, ...)

# Each builder gets its schema; ops registered beyond the built-in ones (by a program
# embedding Tessera) get builders made now.
populate(globals(), __name__)
