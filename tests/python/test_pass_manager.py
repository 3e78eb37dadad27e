"""The pass manager from Python: ports of TVM's tests/python/relay/test_pass_manager.py
(marked [PORT] in passinfra.md) plus the semantics TVM leaves implicit."""
import threading

import numpy as np
import pytest

import tessera
from tessera import op, transform
from tessera.instrument import PassInstrument
from tessera.transform import (FunctionPass, ModulePass, PassContext, PassInfo, Sequential,
                               function_pass, module_pass)

from helpers import add_function, double_params, relu_function


def test_module_pass():
    shape = (5, 10)
    mod = tessera.IRModule({"myAdd": add_function(shape)})
    abs_func = relu_function(shape)
    pass_name = "module_pass_test"

    @module_pass(opt_level=0, name=pass_name)
    def transform(m, ctx):
        return m.with_function("myAbs", abs_func)

    assert isinstance(transform, ModulePass)
    assert transform.info.name == pass_name
    assert transform.info.opt_level == 0
    assert pass_name in str(transform)
    assert "Run Module pass: module_pass_test at the optimization level 0" == repr(transform)

    res = transform(mod)
    assert isinstance(res, tessera.IRModule)
    assert list(res.functions) == ["myAdd", "myAbs"]
    assert res["myAdd"].same_as(mod["myAdd"])
    assert res["myAbs"].same_as(abs_func)
    assert "myAbs" not in mod  # modules are immutable

    x = np.arange(50, dtype="float32").reshape(shape)
    np.testing.assert_array_equal(tessera.evaluate_function(res, "myAdd", x, x), x + x)
    np.testing.assert_array_equal(tessera.evaluate_function(res, "myAbs", x - 10),
                                  np.maximum(x - 10, 0))


def test_module_pass_direct_call_and_default_name():
    def direct_transform(m, ctx):
        return m

    mod_pass = module_pass(direct_transform, opt_level=3)
    assert isinstance(mod_pass, ModulePass)
    assert mod_pass.info.name == "direct_transform"
    assert mod_pass.info.opt_level == 3


def test_module_pass_argument_errors():
    with pytest.raises(ValueError, match="Please provide opt_level for the module pass."):
        module_pass(lambda m, c: m)
    with pytest.raises(ValueError, match="Please provide opt_level for the function pass."):
        function_pass(lambda f, m, c: f)
    with pytest.raises(TypeError):
        module_pass(lambda m, c: m, opt_level=1, required="InferType")
    with pytest.raises(TypeError):
        module_pass(opt_level=1)(42)


def test_function_class_pass():
    @function_pass(opt_level=1)
    class TestReplaceFunc:
        """Replaces every function by new_func."""

        def __init__(self, new_func):
            self.new_func = new_func

        def transform_function(self, func, mod, ctx):
            return self.new_func

    x = tessera.var("x", shape=(10, 20))
    f1 = tessera.Function([x], x)
    y = tessera.var("y", shape=(10, 20))
    f2 = tessera.Function([y], op.nn.relu(y))
    fpass = TestReplaceFunc(f1)
    assert isinstance(fpass, FunctionPass)
    assert isinstance(fpass, TestReplaceFunc)
    assert fpass.info.opt_level == 1
    assert fpass.info.name == "TestReplaceFunc"
    assert TestReplaceFunc.__doc__ == "Replaces every function by new_func."
    assert fpass.new_func.same_as(f1)  # unknown attributes fall through to the instance
    mod = tessera.transform.InferType()(fpass(tessera.IRModule.from_expr(f2)))
    expected = tessera.transform.InferType()(tessera.IRModule.from_expr(f1))
    tessera.assert_structural_equal(mod["main"], expected["main"])


def test_function_pass():
    func = relu_function((10, 20))
    mod = tessera.IRModule({"myLog": func})

    @function_pass(opt_level=1, name="func_pass_test")
    def transform(f, m, ctx):
        return double_params(f)

    assert isinstance(transform, FunctionPass)
    assert transform.info.name == "func_pass_test"
    assert transform.info.opt_level == 1
    assert "Run Function pass: func_pass_test" in repr(transform)
    res = transform(mod)
    a = tessera.var("a", shape=(10, 20))
    expected = tessera.Function([a], op.nn.relu(op.add(a, a)))
    tessera.assert_structural_equal(res["myLog"], expected)
    x = np.linspace(-1, 1, 200, dtype="float32").reshape(10, 20)
    np.testing.assert_allclose(tessera.evaluate_function(res, "myLog", x), np.maximum(2 * x, 0))


def test_function_pass_skips_primitive_and_keeps_identity():
    prim = relu_function().with_attr("Primitive", 1)
    mod = tessera.IRModule({"main": add_function(), "fused": prim})
    seen = []

    @function_pass(opt_level=0)
    def record(f, m, ctx):
        seen.append(f)
        return f

    assert record(mod).same_as(mod)  # no change: the input module itself
    assert len(seen) == 1 and seen[0].same_as(mod["main"])


def test_function_pass_return_type_checked():
    @function_pass(opt_level=0)
    def bad(f, m, ctx):
        return 3

    with pytest.raises(tessera.TesseraTypeError, match="function pass 'bad' must return a Function, got int"):
        bad(tessera.IRModule.from_expr(add_function()))

    @module_pass(opt_level=0)
    def bad_module(m, ctx):
        return None

    with pytest.raises(TypeError, match="module pass 'bad_module' must return an IRModule, got NoneType"):
        bad_module(tessera.IRModule.from_expr(add_function()))


def test_module_class_pass():
    @module_pass(opt_level=1)
    class TestPipeline:
        """Simple test function to replace one argument to another."""

        def __init__(self, new_mod, replace):
            self.new_mod = new_mod
            self.replace = replace

        def transform_module(self, mod, ctx):
            if self.replace:
                return self.new_mod
            return mod

    m1 = tessera.IRModule.from_expr(add_function())
    m2 = tessera.IRModule.from_expr(relu_function())
    assert TestPipeline(m2, replace=True)(m1).same_as(m2)
    assert TestPipeline(m2, replace=False)(m1).same_as(m1)
    assert TestPipeline(m2, False).info.name == "TestPipeline"
    # Identity survives a trip through a C++ Sequential too.
    assert Sequential([TestPipeline(m2, True)])(m1).same_as(m2)


def test_pass_info():
    info = PassInfo(opt_level=1, name="xyz")
    assert info.opt_level == 1
    assert info.name == "xyz"
    assert info.required == []
    info = PassInfo(2, "abc", required=["InferType"])
    assert info.required == ["InferType"]
    assert repr(info) == ("The meta data of the pass - pass name: abc, opt_level: 2, "
                          "required passes: [InferType]")


def _sequential_fixture():
    shape = (2, 3)
    mod = tessera.IRModule({"myAdd": add_function(shape)})
    abs_func = relu_function(shape)

    @module_pass(opt_level=1)
    def mod_transform(m, ctx):
        return m.with_function("myAbs", abs_func)

    @function_pass(opt_level=1)
    def func_transform(f, m, ctx):
        return double_params(f)

    return mod, abs_func, mod_transform, func_transform


def test_sequential_pass():
    mod, abs_func, mod_transform, func_transform = _sequential_fixture()

    # Registration.
    seq = Sequential(opt_level=2)
    assert seq.info.name == "sequential"
    assert seq.info.opt_level == 2
    assert Sequential().info.opt_level == 0
    with pytest.raises(TypeError):
        Sequential(passes=mod_transform)

    # An empty Sequential is the identity.
    assert Sequential()(mod).same_as(mod)

    # Only the module pass (required, though its level is above the context's).
    with PassContext(opt_level=0, required_pass=["mod_transform"]):
        res = Sequential([mod_transform])(mod)
    assert "myAbs" in res
    tessera.assert_structural_equal(res["myAdd"], mod["myAdd"])

    # Only the function pass.
    with PassContext(opt_level=1):
        res = Sequential([func_transform])(mod)
    tessera.assert_structural_equal(res["myAdd"], double_params(mod["myAdd"]))

    # Both: the function pass also rewrites the function the module pass added.
    with PassContext(opt_level=1):
        res = Sequential([mod_transform, func_transform])(mod)
    tessera.assert_structural_equal(res["myAbs"], double_params(abs_func))
    tessera.assert_structural_equal(res["myAdd"], double_params(mod["myAdd"]))

    # The opposite order leaves myAbs untouched.
    with PassContext(opt_level=1):
        res = Sequential([func_transform, mod_transform])(mod)
    assert res["myAbs"].same_as(abs_func)


def test_sequential_skips_by_opt_level_and_disabled():
    mod, _, mod_transform, _ = _sequential_fixture()
    with PassContext(opt_level=0), pytest.warns(UserWarning, match="mod_transform needs opt_level 1"):
        assert Sequential([mod_transform])(mod).same_as(mod)
    with PassContext(opt_level=3, disabled_pass=["mod_transform"]):
        assert "myAbs" not in Sequential([mod_transform])(mod)
    # Disabled wins over required.
    with PassContext(opt_level=3, required_pass=["mod_transform"], disabled_pass=["mod_transform"]):
        assert "myAbs" not in Sequential([mod_transform])(mod)
    # A direct call ignores opt_level and disabled_pass.
    with PassContext(opt_level=0, disabled_pass=["mod_transform"]):
        assert "myAbs" in mod_transform(mod)


def test_nested_sequential_with_scoping():
    ran = []

    @module_pass(opt_level=0)
    def level0(m, ctx):
        ran.append("level0")
        return m

    mod = tessera.IRModule.from_expr(add_function())
    with PassContext(opt_level=1):
        Sequential([Sequential([level0])])(mod)
    assert ran == ["level0"]  # the inner Sequential (default opt_level 0) is not skipped
    with PassContext(opt_level=1), pytest.warns(UserWarning, match="sequential needs opt_level 3"):
        Sequential([Sequential([level0], opt_level=3)])(mod)
    assert ran == ["level0"]


def test_required_dependencies_run_every_time_even_if_disabled():
    ran = []

    class Recorder(PassInstrument):
        def run_before_pass(self, mod, info):
            ran.append(info.name)

    @module_pass(opt_level=0, required=["InferType"])
    def needs_types(m, ctx):
        assert m["main"].body.checked_type_or_none is not None
        return m

    mod = tessera.IRModule.from_expr(add_function())
    with PassContext(disabled_pass=["InferType"], instruments=[Recorder()]):
        Sequential([needs_types, needs_types])(mod)
    assert ran == ["sequential", "InferType", "needs_types", "InferType", "needs_types"]


def test_print_ir(capfd):
    shape = (1, 2, 3)
    mod = tessera.IRModule.from_expr(add_function(shape))
    seq = Sequential([tessera.transform.InferType(),
                      tessera.transform.PrintIR(header="after type inference"),
                      tessera.transform.InferType()])
    with PassContext(opt_level=3):
        res = seq(mod)
    tessera.assert_structural_equal(res, tessera.transform.InferType()(mod))
    err = capfd.readouterr().err
    assert "PrintIR(after type inference)" in err
    assert "add(%x, %y)" in err


def test_print_debug_callback():
    class PassCounter(PassInstrument):
        def __init__(self):
            super().__init__()
            self.counts = 0

        def enter_pass_ctx(self):
            self.counts = 0

        def exit_pass_ctx(self):
            self.counts = 0

        def run_before_pass(self, mod, info):
            self.counts += 1

    counter = PassCounter()
    seq = Sequential([tessera.transform.InferType(), tessera.transform.DeadCodeElimination(),
                      tessera.transform.InferType()])
    mod = tessera.IRModule.from_expr(add_function())
    with PassContext(opt_level=3, instruments=[counter]):
        assert counter.counts == 0
        seq(mod)
        # The Sequential itself and its three children; no hidden passes.
        assert counter.counts == 4
    assert counter.counts == 0


def test_python_pass_in_sequential_sees_context_and_types():
    """`with PassContext(...)` + Sequential + a Python module pass + C++ InferType."""
    seen = {}

    @module_pass(opt_level=1, name="PyInspect")
    def inspect_pass(m, ctx):
        seen["ctx"] = ctx
        seen["current"] = PassContext.current()
        seen["type"] = m["main"].body.checked_type
        seen["collage"] = ctx.get_config("collage.enable")
        x = m["main"].params[0]
        return m.with_function("main", tessera.Function(m["main"].params, op.nn.relu(x)))

    mod = tessera.IRModule.from_expr(add_function((2, 2)))
    ctx = PassContext(opt_level=2, config={"collage.enable": True})
    with ctx:
        res = Sequential([tessera.transform.InferType(), inspect_pass,
                          tessera.transform.InferType()])(mod)
    assert seen["ctx"] == ctx and seen["current"] == ctx
    assert str(seen["type"]) == "Tensor[(2, 2), float32]"
    assert seen["collage"] is True
    assert str(res["main"].body.checked_type) == "Tensor[(2, 2), float32]"
    x = np.array([[-1, 2], [3, -4]], dtype="float32")
    np.testing.assert_array_equal(tessera.evaluate(res, x, x), np.maximum(x, 0))


class CustomError(Exception):
    pass


def test_python_exception_crosses_cpp_unchanged():
    @module_pass(opt_level=0)
    def broken(m, ctx):
        raise CustomError("broken pass body")

    mod = tessera.IRModule.from_expr(add_function())
    with pytest.raises(CustomError, match="broken pass body"):
        Sequential([tessera.transform.InferType(), Sequential([broken])])(mod)
    with pytest.raises(KeyError):
        module_pass(lambda m, c: m["missing"], opt_level=0)(mod)


def test_pass_context_fields_and_configs():
    ctx = PassContext(opt_level=3, required_pass=("A",), disabled_pass={"B"},
                      config={"testing.immutable_module": True})
    assert ctx.opt_level == 3
    assert ctx.required_pass == ["A"]
    assert ctx.disabled_pass == ["B"]
    assert ctx.instruments == []
    assert ctx.config == {"testing.immutable_module": True}
    assert ctx.get_config("collage.enable") is False
    configs = PassContext.list_configs()
    assert configs["collage.enable"]["type"] == "bool"
    assert configs["collage.enable"]["default"] is False
    assert configs["testing.immutable_module"]["description"]
    default = PassContext.current()
    assert default.opt_level == 2 and default.instruments == []


def test_pass_context_config_errors():
    with pytest.raises(AttributeError, match="invalid config option 'no.such.key'.*collage.enable"):
        PassContext(config={"no.such.key": 1})
    with pytest.raises(tessera.TesseraNotFoundError):
        PassContext(config={"no.such.key": 1})
    # Every bad config, an unknown key or a value the key rejects, is a TesseraConfigError.
    with pytest.raises(tessera.TesseraConfigError,
                       match="config option 'collage.enable' expects a bool value, got int"):
        PassContext(config={"collage.enable": 5})
    with pytest.raises(tessera.TesseraConfigError, match="config option 'collage.enable' is None"):
        PassContext(config={"collage.enable": None})
    with pytest.raises(TypeError):
        PassContext(required_pass="InferType")


def test_pass_context_scoping_and_threads():
    outer = PassContext(opt_level=1)
    inner = PassContext(opt_level=3)
    with outer:
        assert PassContext.current() == outer
        with inner:
            assert PassContext.current() == inner
            assert PassContext.current().opt_level == 3
        assert PassContext.current() == outer
        seen = []
        thread = threading.Thread(target=lambda: seen.append(PassContext.current().opt_level))
        thread.start()
        thread.join()
        assert seen == [2]  # a worker thread has its own default context
    with pytest.raises(ValueError, match="not the innermost"):
        outer.__exit__(None, None, None)


def test_immutable_module_check_passes_for_python_pass():
    @module_pass(opt_level=0)
    def rebinding(m, ctx):
        m["extra"] = relu_function()  # rebinds the handle; the input module is untouched
        return m

    mod = tessera.IRModule.from_expr(add_function())
    with PassContext(config={"testing.immutable_module": True}):
        res = rebinding(mod)
    assert "extra" in res and "extra" not in mod


def test_registered_passes_as_functions():
    names = tessera.transform.list_passes()
    for name in ["InferType", "PrintIR", "FoldConstant", "FuseOps", "DeadCodeElimination"]:
        assert name in names
        factory = getattr(tessera.transform, name)
        assert factory.__name__ == name
    fuse = tessera.transform.FuseOps(max_depth=4)
    assert str(fuse) == "FuseOps{max_depth=4}"
    assert str(tessera.transform.FuseOps()) == "FuseOps"
    assert isinstance(tessera.transform.InferType(), ModulePass)
    with pytest.raises(tessera.TesseraValueError, match="unknown option 'depth'"):
        tessera.transform.get_pass("FuseOps", depth=3)
    with pytest.raises(TypeError, match=r"FuseOps\(\) got an unexpected keyword argument 'bogus'"):
        tessera.transform.FuseOps(bogus=1)
    with pytest.raises(TypeError, match="option 'max_depth' expects an int"):
        tessera.transform.FuseOps(max_depth="deep")


def test_parse_pipeline_round_trip():
    text = "InferType,Sequential{opt_level=2}(FuseOps{max_depth=4},PrintIR{header=x}),FoldConstant"
    pipeline = tessera.transform.parse_pipeline(text)
    assert isinstance(pipeline, Sequential)
    assert str(pipeline) == text
    assert [p.info.name for p in pipeline.passes] == ["InferType", "sequential", "FoldConstant"]
    assert str(tessera.transform.parse_pipeline(str(pipeline))) == text
    with pytest.raises(tessera.TesseraParseError, match="column"):
        tessera.transform.parse_pipeline("InferType,(")
    with pytest.raises(ValueError, match="unknown pass 'NoSuchPass'"):
        tessera.transform.parse_pipeline("NoSuchPass")
    seq = Sequential([tessera.transform.InferType()], name="mine", opt_level=1)
    assert str(seq) == "Sequential{name=mine,opt_level=1}(InferType)"


def test_pass_kind_picks_the_python_class():
    """Every pass says what it transforms (a C++ PassKind); Python wraps it by that."""
    from tessera import transform
    assert transform.get_pass("FuseOps").kind == "module"
    assert transform.get_pass("FoldConstant").kind == "function"
    seq = transform.Sequential([transform.get_pass("FoldConstant")])
    assert seq.kind == "sequential"
    assert isinstance(seq.passes[0], transform.FunctionPass)
    assert isinstance(transform.parse_pipeline("InferType,FuseOps").passes[1], transform.ModulePass)


def test_opt_level_outside_0_to_4_is_an_error():
    # Passes declare levels 0-4: another level would silently run every pass or none.
    for level in (-1, 5):
        with pytest.raises(tessera.TesseraValueError, match="opt_level must be from 0 to 4"):
            PassContext(opt_level=level)


def test_sequential_warns_about_passes_its_opt_level_skips():
    """Skipped as in TVM, but not silently: a listed pass above the context's opt_level
    warns once per call; disabled passes and enabled ones do not."""
    import warnings
    mod = tessera.parse("def @main(%x: Tensor[(2), float32]) { nn.relu(%x) }")
    seq = transform.Sequential([transform.PlanLayouts(), transform.InferType()])
    with pytest.warns(UserWarning, match=r"PlanLayouts needs opt_level 3 and is skipped at "
                                         r"opt_level 2"):
        seq(mod)
    # Inside an enabled inner Sequential too.
    with pytest.warns(UserWarning, match="PlanLayouts needs opt_level 3"):
        transform.Sequential([seq])(mod)
    for ctx in (transform.PassContext(opt_level=3),
                transform.PassContext(disabled_pass=["PlanLayouts"]),
                transform.PassContext(required_pass=["PlanLayouts"])):
        with ctx, warnings.catch_warnings():
            warnings.simplefilter("error")
            seq(mod)
