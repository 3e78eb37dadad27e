"""Tensor-level IR from Python: build and edit PrimFuncs (TVM's ``tvm.tir`` in small).

Scalar expressions (``Var``, literals, arithmetic with Python operators, ``buf[i, j]``
loads, ``select``, ``cast``, ``min``/``max``, ``call_intrin("exp", x)``), buffers and
statements (``for_``, ``store``, ``seq``, ``allocate``, ``if_then_else``, ``prefetch``)
build a body; ``prim_func(params, body, num_outputs)`` makes the PrimFunc, which a graph
function calls with ``tessera.op.call_tir``. Every node exposes its fields (``loop.extent``,
``store.value``, ``func.body``, ...), and ``func.with_body(stmt)`` edits one::

    import tessera
    from tessera import tir

    a, b = tir.Buffer("a", (8,)), tir.Buffer("b", (8,))
    i = tir.Var("i")
    add_one = tir.prim_func([a, b], tir.for_(i, 0, 8, tir.store(b, a[i] + 1.0, [i])))
    x = tessera.var("x", shape=(8,))
    main = tessera.Function([x], tessera.op.call_tir("add_one", [x], tessera.ir.TensorType((8,))))
    mod = tessera.IRModule({"main": main, "add_one": add_one})
"""
from . import _core

_t = _core.tir

PrimExpr = _t.PrimExpr
Var = _t.Var
IntImm = _t.IntImm
FloatImm = _t.FloatImm
Binary = _t.Binary
BufferLoad = _t.BufferLoad
Select = _t.Select
Cast = _t.Cast
Not = _t.Not
Intrinsic = _t.Intrinsic
Buffer = _t.Buffer
Stmt = _t.Stmt
For = _t.For
BufferStore = _t.BufferStore
SeqStmt = _t.SeqStmt
Allocate = _t.Allocate
IfThenElse = _t.IfThenElse
Prefetch = _t.Prefetch
Block = _t.Block
PrimFunc = _core.PrimFunc

const = _t.const
select = _t.select
cast = _t.cast
min = _t.min  # noqa: A001 - TVM's name
max = _t.max  # noqa: A001 - TVM's name
floordiv = _t.floordiv
floormod = _t.floormod
eq = _t.eq
call_intrin = _t.call_intrin
for_ = _t.for_
store = _t.store
seq = _t.seq
allocate = _t.allocate
if_then_else = _t.if_then_else
prefetch = _t.prefetch
prim_func = _t.prim_func

__all__ = [
    "PrimExpr", "Var", "IntImm", "FloatImm", "Binary", "BufferLoad", "Select", "Cast", "Not",
    "Intrinsic", "Buffer", "Stmt", "For", "BufferStore", "SeqStmt", "Allocate", "IfThenElse",
    "Prefetch", "Block", "PrimFunc", "const", "select", "cast", "min", "max", "floordiv",
    "floormod", "eq", "call_intrin", "for_", "store", "seq", "allocate", "if_then_else",
    "prefetch", "prim_func",
]
