"""tessera.tir: PrimFuncs built and edited from Python run in the interpreter and compiled,
matching NumPy."""
import numpy as np
import pytest

import tessera
from tessera import tir
from tessera.ir import TensorType


def module_with(name, func, inputs, out_shape):
    params = [tessera.var(f"x{k}", shape=s) for k, s in enumerate(inputs)]
    main = tessera.Function(params, tessera.op.call_tir(name, params, TensorType(out_shape)))
    return tessera.IRModule({"main": main, name: func})


def matmul_prim_func(m, n, k):
    """C = A @ B with a scratch accumulator row: loops, allocate, loads, stores, a sequence."""
    a, b, c = tir.Buffer("A", (m, k)), tir.Buffer("B", (k, n)), tir.Buffer("C", (m, n))
    acc = tir.Buffer("acc", (n,))
    i, j, r = tir.Var("i"), tir.Var("j"), tir.Var("r")
    j2, j3 = tir.Var("j2"), tir.Var("j3")
    body = tir.for_(i, 0, m, tir.allocate(acc, tir.seq([
        tir.for_(j, 0, n, tir.store(acc, 0.0, [j])),
        tir.for_(r, 0, k, tir.for_(j2, 0, n, tir.store(acc, acc[j2] + a[i, r] * b[r, j2], [j2]))),
        tir.for_(j3, 0, n, tir.store(c, acc[j3], [i, j3]), kind="vectorized"),
    ])))
    return tir.prim_func([a, b, c], body)


def test_built_prim_func_runs_interpreted_and_compiled():
    mod = module_with("matmul", matmul_prim_func(3, 5, 4), [(3, 4), (4, 5)], (3, 5))
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((3, 4), dtype=np.float32)
    x1 = rng.standard_normal((4, 5), dtype=np.float32)
    want = x0 @ x1
    np.testing.assert_allclose(tessera.run(mod, x0=x0, x1=x1), want, rtol=1e-5, atol=1e-5)
    got = tessera.build(mod, "native -num_threads=1")(x0=x0, x1=x1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_expressions_select_cast_intrinsics_and_branches():
    a, b = tir.Buffer("a", (6,)), tir.Buffer("b", (6,))
    i = tir.Var("i")
    relu_exp = tir.select(a[i] > 0.0, tir.call_intrin("exp", a[i]), tir.const(0.0, "float32"))
    half = tir.cast("float32", tir.floordiv(i, 2))
    body = tir.for_(i, 0, 6, tir.if_then_else(
        i < 3, tir.store(b, relu_exp, [i]), tir.store(b, half + tir.max(a[i], -1.0), [i])))
    mod = module_with("mix", tir.prim_func([a, b], body), [(6,)], (6,))
    x = np.array([-1, 0.5, 2, -3, 0.25, 4], dtype=np.float32)
    want = np.where(np.arange(6) < 3, np.where(x > 0, np.exp(x), 0),
                    np.arange(6) // 2 + np.maximum(x, -1)).astype(np.float32)
    np.testing.assert_allclose(tessera.run(mod, x0=x), want, rtol=1e-6)
    np.testing.assert_allclose(tessera.build(mod, "native -num_threads=1")(x0=x), want, rtol=1e-6)


def test_edit_a_prim_func_through_its_fields():
    func = matmul_prim_func(2, 3, 2)
    outer = func.body
    assert isinstance(outer, tir.For) and outer.kind == "serial" and outer.loop_var.name == "i"
    assert [b.name for b in func.params] == ["A", "B", "C"] and func.num_outputs == 1
    assert isinstance(outer.body, tir.Allocate) and isinstance(outer.body.body, tir.SeqStmt)
    parallel = func.with_body(tir.for_(outer.loop_var, outer.min, outer.extent, outer.body,
                                       kind="parallel"))
    assert "in 0 +: 2 parallel" in parallel.script("matmul")
    mod = module_with("matmul", parallel, [(2, 2), (2, 3)], (2, 3))
    x0, x1 = np.ones((2, 2), np.float32), np.ones((2, 3), np.float32)
    np.testing.assert_allclose(tessera.build(mod, "native")(x0=x0, x1=x1), x0 @ x1)
    # The text format round-trips what Python built.
    text = parallel.script("matmul")
    assert tessera.parse(text).astext() == text


def test_prefetch_is_a_hint_that_round_trips():
    # b[i] = a[i] * 2 with a prefetch of a few elements ahead (past the end at the last
    # iterations): the same result interpreted and compiled, and the text form keeps it.
    a, b = tir.Buffer("a", (40,)), tir.Buffer("b", (40,))
    i = tir.Var("i")
    body = tir.for_(i, 0, 40, tir.seq([tir.prefetch(a, [i + 16]), tir.store(b, a[i] * 2.0, [i])]))
    func = tir.prim_func([a, b], body)
    hint = func.body.body.seq[0]
    assert isinstance(hint, tir.Prefetch) and hint.buffer.name == "a" and len(hint.indices) == 1
    text = func.script("pf")
    assert "prefetch %a[%i + 16];" in text and tessera.parse(text).astext() == text
    mod = module_with("pf", func, [(40,)], (40,))
    x = np.arange(40, dtype=np.float32)
    np.testing.assert_allclose(tessera.run(mod, x0=x), x * 2)
    ex = tessera.build(mod, "native -num_threads=1")
    np.testing.assert_allclose(ex(x0=x), x * 2)
    assert "__builtin_prefetch(&a[" in ex.source()
    with pytest.raises(tessera.TesseraTypeError, match="rank 1 with 2 indices"):
        tir.prefetch(a, [i, i])


def test_allocation_without_zero_fill():
    a, b, t = tir.Buffer("a", (8,)), tir.Buffer("b", (8,)), tir.Buffer("t", (8,))
    i, j = tir.Var("i"), tir.Var("j")
    body = tir.allocate(t, tir.seq([tir.for_(i, 0, 8, tir.store(t, a[i] + 1.0, [i])),
                                    tir.for_(j, 0, 8, tir.store(b, t[j] * 3.0, [j]))]),
                        zero_fill=False)
    assert body.zero_fill is False and tir.allocate(t, body.body).zero_fill is True
    func = tir.prim_func([a, b], body)
    assert "uninitialized {" in func.script("u")
    mod = module_with("u", func, [(8,)], (8,))
    x = np.arange(8, dtype=np.float32)
    np.testing.assert_allclose(tessera.build(mod, "native -num_threads=1")(x0=x), (x + 1) * 3)


def test_mistakes_are_clear_errors():
    a = tir.Buffer("a", (4,))
    i = tir.Var("i")
    with pytest.raises(tessera.TesseraValueError, match="unknown loop kind 'fast'"):
        tir.for_(i, 0, 4, tir.store(a, 1.0, [i]), kind="fast")
    with pytest.raises(tessera.TesseraTypeError):
        i + tir.const(1.0, "float32")  # int32 and float32 do not mix without a cast
    with pytest.raises(tessera.TesseraValueError, match="num_outputs"):
        tir.prim_func([a], tir.store(a, 1.0, [0]), num_outputs=2)
    with pytest.raises(tessera.TesseraTypeError, match="expected a PrimExpr, int or float"):
        a["x"]
