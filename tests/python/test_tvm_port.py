"""TVM code ports by renaming tvm. to tessera.: IRModule keyed by GlobalVar, update and
update_func, get_global_var(s), PassContext(trace=...), prim_func_pass, and Python passes
registered by name so other passes can require them."""
import pytest

import tessera
from tessera import op, transform


def small_module():
    x = tessera.var("x", shape=(4,))
    return tessera.Function([x], op.nn.relu(x))


def test_irmodule_takes_and_gives_global_vars():
    f = small_module()
    gv = tessera.GlobalVar("main")
    mod = tessera.IRModule({gv: f})
    assert tessera.structural_equal(mod[gv], f) and tessera.structural_equal(mod["main"], f)
    assert gv in mod and "main" in mod and tessera.GlobalVar("other") not in mod and 3 not in mod
    (var,) = mod.get_global_vars()
    assert isinstance(var, tessera.GlobalVar) and var.name_hint == "main"
    assert mod.get_global_var("main").name_hint == "main"
    with pytest.raises(tessera.TesseraNotFoundError, match="no function @nope"):
        mod.get_global_var("nope")
    with pytest.raises(tessera.TesseraTypeError, match="expected a function name"):
        mod[3]


def test_update_and_update_func():
    f = small_module()
    mod = tessera.IRModule()
    mod.update(tessera.IRModule({"main": f}))
    mod.update_func(tessera.GlobalVar("helper"), f)
    assert [v.name_hint for v in mod.get_global_vars()] == ["main", "helper"]
    mod.update_func("helper", small_module())  # replaces
    assert len(mod) == 2


def test_pass_context_trace_sees_every_pass_before_and_after():
    mod = tessera.IRModule.from_expr(small_module())
    seen = []
    with transform.PassContext(opt_level=3, trace=lambda m, info, before: seen.append(
            (info.name, before, isinstance(m, tessera.IRModule)))):
        transform.Sequential([transform.InferType(), transform.FuseOps()])(mod)
    assert seen == [("sequential", True, True), ("InferType", True, True),
                    ("InferType", False, True), ("FuseOps", True, True),
                    ("FuseOps", False, True), ("sequential", False, True)]
    with pytest.raises(tessera.TesseraTypeError, match="trace must be callable"):
        transform.PassContext(trace=3)


def test_prim_func_pass_visits_and_removes_prim_funcs():
    lowered = tessera.lower(tessera.IRModule.from_expr(small_module()))
    names = []

    @transform.prim_func_pass(opt_level=0)
    def record(func, mod, ctx):
        names.append(type(func).__name__)
        return func

    assert isinstance(record, transform.PrimFuncPass)
    record(lowered)
    assert names == ["PrimFunc"]

    @transform.prim_func_pass(opt_level=0, name="DropAll")
    class DropAll:
        def transform_function(self, func, mod, ctx):
            return None

    dropped = DropAll()(lowered)
    assert not any(isinstance(dropped[v], tessera.ir.PrimFunc) for v in dropped.get_global_vars())
    with pytest.raises(ValueError, match="opt_level"):
        transform.prim_func_pass(lambda f, m, c: f)


def test_registered_python_pass_runs_as_a_requirement_and_in_pipelines():
    ran = []

    @transform.module_pass(opt_level=0, name="RecordRun")
    def record_run(mod, ctx):
        ran.append("RecordRun")
        return mod

    if "RecordRun" not in transform.list_passes():
        transform.register_pass("RecordRun", lambda: record_run, "notes that it ran")

    @transform.module_pass(opt_level=0, required=["RecordRun"])
    def needs_it(mod, ctx):
        ran.append("needs_it")
        return mod

    mod = tessera.IRModule.from_expr(small_module())
    transform.Sequential([needs_it])(mod)
    assert ran == ["RecordRun", "needs_it"]
    transform.parse_pipeline("InferType,RecordRun")(mod)
    assert ran[-1] == "RecordRun"
    with pytest.raises(tessera.TesseraValueError, match="'FuseOps' is already registered"):
        transform.register_pass("FuseOps", lambda: record_run)


def test_build_runs_main_calling_another_global_function():
    import numpy as np
    mod = tessera.parse("""
def @helper(%a: Tensor[(4), float32]) -> Tensor[(4), float32] {
  nn.relu(%a)
}
def @main(%x: Tensor[(4), float32]) {
  add(@helper(%x), @helper(negative(%x)))
}""")
    x = np.array([-2, -1, 1, 2], dtype=np.float32)
    want = tessera.run(mod, x=x)
    got = tessera.build(mod, "native -num_threads=1")(x=x)
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(got, np.abs(x))


def test_build_runs_a_partition_made_by_hand():
    import numpy as np
    from tessera import collage
    if "dnnl" not in {t["name"] for t in tessera.list_targets()}:
        pytest.skip("this build has no oneDNN")
    mod = tessera.parse("""
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1]);
  %1 = nn.relu(%0);
  add(%1, %1)
}""")
    labels = collage.node_labels(mod)
    conv_relu = [i for i, l in enumerate(labels) if l in ("nn.conv2d", "nn.relu")]
    partitioned = collage.PartitionForTesting(1, False, "dnnl", conv_relu)(mod)
    rng = np.random.default_rng(0)
    inputs = {"x": rng.standard_normal((1, 3, 8, 8), dtype=np.float32),
              "w": rng.standard_normal((4, 3, 3, 3), dtype=np.float32)}
    ex = tessera.build(partitioned, "native -num_threads=1")
    np.testing.assert_allclose(ex(**inputs), tessera.run(mod, **inputs), rtol=1e-4, atol=1e-4)
    assert "dnnl" in ex.profile(**inputs)["table"]


def test_unannotated_nested_function_is_typed_by_its_call_and_builds():
    import numpy as np
    # The pass-infrastructure example: a nested function whose parameter has no annotation.
    mod = tessera.parse("""
def @main(%x: Tensor[(4), float32]) {
  let %f = fn (%y) { nn.relu(%y) };
  add(%f(%x), %f(negative(%x)))
}""")
    typed = transform.InferType()(mod)
    assert "fn (%y: Tensor[(4), float32])" in typed.astext()
    x = np.array([-2, -1, 1, 2], dtype=np.float32)
    np.testing.assert_allclose(tessera.build(mod, "native -num_threads=1")(x=x), np.abs(x))
    np.testing.assert_allclose(tessera.run(mod, x=x), np.abs(x))
