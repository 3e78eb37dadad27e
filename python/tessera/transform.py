"""The pass infrastructure: PassContext, passes, Sequential, Python-defined passes, the
registered passes as functions, and textual pipelines.

The API follows ``tvm.transform``: ``with PassContext(opt_level=3): mod = seq(mod)``,
``@module_pass(opt_level=1)`` and ``@function_pass(opt_level=1)`` on functions or classes.
Python passes are C++ passes calling back into Python, so they run inside C++ Sequentials
under the same PassContext and instruments as built-in passes.
"""
import functools
import inspect
import keyword
import warnings

from . import _core, _passes
from ._pass_factory import registered_pass as _registered_pass
from ._passes import *  # noqa: F401,F403  (a factory per registered pass)
from .error import TesseraTypeError, TesseraValueError

PassInfo = _core.PassInfo
PassContext = _core.PassContext
Pass = _core.Pass


class ModulePass(Pass):
    """A pass transforming a whole module."""


class FunctionPass(Pass):
    """A pass transforming each eligible graph function of a module."""


class PrimFuncPass(Pass):
    """A pass transforming each PrimFunc of a module."""


class Sequential(Pass):
    """Runs passes in order, each if the PassContext enables it (disabled, then required,
    then opt_level), after running its required passes.

    Parameters follow TVM: ``Sequential(passes=None, opt_level=0, name="sequential",
    required=None)``.
    """

    def __init__(self, passes=None, opt_level=0, name="sequential", required=None):
        passes = passes if passes else []
        if not isinstance(passes, (list, tuple)):
            raise TypeError("passes must be a list of Pass objects.")
        required = required if required else []
        if not isinstance(required, (list, tuple)):
            raise TypeError("Required is expected to be the type of list/tuple.")
        for p in passes:
            if not isinstance(p, Pass):
                raise TypeError(f"Sequential: expected Pass objects, got a {type(p).__name__}")
        super().__init__(_core.sequential(list(passes), opt_level, name, list(required)))

    def __call__(self, mod):
        # A pass the current context's opt_level skips is skipped as in TVM, but not
        # silently: a user who listed it learns why it did nothing.
        _warn_skipped(self, PassContext.current())
        return Pass.__call__(self, mod)


def _warn_skipped(seq, ctx):
    for p in seq.passes:
        info = p.info
        if ctx.pass_enabled(info):
            if p.kind == "sequential":
                _warn_skipped(wrap_pass(p), ctx)
        elif info.name not in ctx.disabled_pass:
            warnings.warn(f"{info.name} needs opt_level {info.opt_level} and is skipped at "
                          f"opt_level {ctx.opt_level} (run it under "
                          f"PassContext(opt_level={info.opt_level}) or "
                          f"required_pass=['{info.name}'])", stacklevel=3)


# The Python class of each C++ PassKind.
_CLASS_OF_KIND = {
    "sequential": Sequential,
    "function": FunctionPass,
    "prim_func": PrimFuncPass,
    "module": ModulePass,
}


def wrap_pass(core_pass):
    """The same pass as an instance of its Python class (ModulePass, Sequential, ...)."""
    cls = _CLASS_OF_KIND.get(core_pass.kind, Pass)
    if type(core_pass) is cls:
        return core_pass
    obj = cls.__new__(cls)
    Pass.__init__(obj, core_pass)
    return obj


def _passes_of(self):
    return [wrap_pass(p) for p in _core.Pass.passes.fget(self)]


setattr(Sequential, "passes", property(_passes_of, doc="The child passes."))


def parse_pipeline(text):
    """Parses a textual pipeline, e.g. ``"InferType,Sequential{opt_level=2}(FuseOps{max_depth=4})"``.

    A top-level list becomes a Sequential named "pipeline"; ``str(pass)`` prints it back.
    """
    return wrap_pass(_core.parse_pipeline(text))


def get_pass(name, **options):
    """Builds registered pass ``name`` with typed ``options``."""
    return wrap_pass(_core.get_pass(name, options))


def list_passes():
    """Every registered pass: {name: {"description", "options": [{name, type, default,
    description}]}}, sorted by name."""
    return {p["name"]: {"description": p["description"], "options": p["options"]}
            for p in _core.list_passes()}


def _check_required(required):
    required = required if required else []
    if not isinstance(required, (list, tuple)):
        raise TypeError("Required is expected to be the type of list/tuple.")
    return list(required)


def _wrap_class_pass(pass_cls, pass_info, base, method, make):
    """A class whose instances are passes calling ``pass_cls(...).<method>``."""

    class PyPass(base):
        def __init__(self, *args, **kwargs):
            inst = pass_cls(*args, **kwargs)
            # The callback closes over the user instance, not self, to avoid a cycle.
            transform = getattr(inst, method)

            def _pass_func(*call_args):
                return transform(*call_args)

            base.__init__(self, make(_pass_func, pass_info))
            self.__dict__["_inst"] = inst

        def __getattr__(self, name):
            inst = self.__dict__.get("_inst")
            if inst is None:
                raise AttributeError(name)
            return getattr(inst, name)

    functools.update_wrapper(PyPass.__init__, pass_cls.__init__)
    PyPass.__name__ = pass_cls.__name__
    PyPass.__qualname__ = pass_cls.__qualname__
    PyPass.__doc__ = pass_cls.__doc__
    PyPass.__module__ = pass_cls.__module__
    return PyPass


def _pass_decorator(kind, cls, method, make, pass_func, opt_level, name, required):
    """What module_pass, function_pass and prim_func_pass share: checks, the PassInfo, and
    a function or a class (whose instances are passes calling ``method``) made into one."""
    if opt_level is None:
        raise ValueError(f"Please provide opt_level for the {kind} pass.")
    required = _check_required(required)

    def create(pass_arg):
        if not callable(pass_arg):
            raise TypeError(f"pass_func must be a callable for {kind} pass")
        info = PassInfo(opt_level, name if name else pass_arg.__name__, required)
        if inspect.isclass(pass_arg):
            return _wrap_class_pass(pass_arg, info, cls, method, make)
        return cls(make(pass_arg, info))

    return create(pass_func) if pass_func else create


def module_pass(pass_func=None, opt_level=None, name=None, required=None):
    """Turns ``f(mod, ctx) -> IRModule`` (or a class with ``transform_module``) into a
    ModulePass. Usable as ``@module_pass(opt_level=1)`` or ``module_pass(f, opt_level=1)``;
    the name defaults to the function's or class's name. On a class it returns a class
    whose instances are passes; unknown attributes fall through to the user's instance."""
    return _pass_decorator("module", ModulePass, "transform_module", _core.create_module_pass,
                           pass_func, opt_level, name, required)


def function_pass(pass_func=None, opt_level=None, name=None, required=None, include_all=False):
    """Turns ``f(func, mod, ctx) -> Function`` (or a class with ``transform_function``)
    into a FunctionPass applied to each graph function of the module. Functions marked
    Compiler, SkipOptimization or Primitive are skipped unless ``include_all``."""
    def make(fn, info):
        return _core.create_function_pass(fn, info, include_all)

    return _pass_decorator("function", FunctionPass, "transform_function", make, pass_func,
                           opt_level, name, required)


def prim_func_pass(pass_func=None, opt_level=None, name=None, required=None):
    """Turns ``f(func, mod, ctx) -> PrimFunc`` (or a class with ``transform_function``) into
    a PrimFuncPass applied to each PrimFunc of the module; returning None removes it."""
    return _pass_decorator("prim_func", PrimFuncPass, "transform_function",
                           _core.create_prim_func_pass, pass_func, opt_level, name, required)


def register_pass(name, factory, description=""):
    """Registers ``factory()`` (returning a Pass, e.g. a class made by ``module_pass``) under
    ``name``, so that pipelines (``parse_pipeline``, ``tessera opt --passes``), ``get_pass``
    and other passes' ``required`` lists find it. A taken name raises TesseraValueError."""
    if not callable(factory):
        raise TypeError(f"register_pass: factory must be callable, got {type(factory).__name__}")
    _core.register_pass(name, description, factory)


def _populate():
    """Factories of registered passes beyond the built-in ones in tessera._passes (passes a
    program embedding Tessera registered), made now; the names of all."""
    names = list(_passes.__all__)
    for entry in _core.list_passes():
        name = entry["name"]
        if name.isidentifier() and name not in names:
            options = {o["name"]: o["default"] for o in entry["options"]}

            def factory(_name=name, _options=options, **given):
                return _registered_pass(_name, {**_options, **given})

            factory.__name__ = factory.__qualname__ = name
            factory.__doc__ = entry["description"]
            globals()[name] = factory
            names.append(name)
    return names


REGISTERED_PASSES = _populate()

__all__ = [
    "PassInfo", "PassContext", "Pass", "ModulePass", "FunctionPass", "PrimFuncPass",
    "Sequential", "module_pass", "function_pass", "prim_func_pass", "register_pass",
    "parse_pipeline", "get_pass", "list_passes", "wrap_pass",
] + REGISTERED_PASSES


# ---- BYOC passes taking pattern tables or compiler lists (tessera.pattern) ----------

def _names(compilers):
    return [compilers] if isinstance(compilers, str) else list(compilers)


def MergeComposite(table="dnnl"):  # noqa: N802 - TVM's name
    """Turns pattern-table matches into ``Composite`` functions. ``table`` is a compiler
    name (or list of names) whose registered tables to use, or a list of
    ``(label, pattern[, predicate])`` entries, as ``tessera.pattern.get_pattern_table``
    returns."""
    if isinstance(table, str) or (table and all(isinstance(t, str) for t in table)):
        return wrap_pass(_core.merge_composite_compilers(_names(table)))
    return wrap_pass(_core.merge_composite_table(list(table)))


def AnnotateTarget(compilers="dnnl", include_non_call_ops=True):  # noqa: N802
    """Annotates the calls ``compilers`` (a name or a list; first wins) support."""
    return wrap_pass(_core.annotate_target(_names(compilers), include_non_call_ops))


__all__ += ["MergeComposite", "AnnotateTarget"]


# ---- Layout planning (TVM's ConvertLayout call form) ---------------------------------

def ConvertLayout(desired_layouts):  # noqa: N802 - TVM's name
    """Gives layout-critical ops the wanted layouts and freezes them; ``desired_layouts``
    maps an op name to its layouts, as TVM's ``ConvertLayout`` takes them:
    ``{"nn.conv2d": ["NCHW16c", "OIHW16i16o"]}`` ("default" keeps one). A list of
    ``[op, layout, ...]`` lists, or the pipeline's text form
    ``"nn.conv2d:NCHW16c,OIHW16i16o"``, is accepted too. Run ``PlanLayouts()`` after it."""
    if isinstance(desired_layouts, str):
        return get_pass("ConvertLayout", desired_layouts=desired_layouts)
    def layouts_of(op, layouts):
        if isinstance(layouts, str):
            return [layouts]
        if not isinstance(layouts, (list, tuple)) or not all(isinstance(l, str) for l in layouts):
            raise TesseraTypeError(f"ConvertLayout: the layouts of '{op}' must be a list of "
                                   f"layout strings such as ['NHWC', 'HWIO'], got {layouts!r}")
        return list(layouts)

    if isinstance(desired_layouts, dict):
        entries = [[op] + layouts_of(op, layouts) for op, layouts in desired_layouts.items()]
    elif isinstance(desired_layouts, (list, tuple)):
        entries = []
        for e in desired_layouts:
            if not isinstance(e, (list, tuple)) or len(e) < 2 or not isinstance(e[0], str):
                raise TesseraTypeError("ConvertLayout: each entry of the list form must be "
                                       f"[op, layout, ...] such as ['nn.conv2d', 'NHWC'], got {e!r}")
            entries.append([e[0]] + layouts_of(e[0], list(e[1:])))
    else:
        raise TesseraTypeError("ConvertLayout: desired_layouts must be a dict {op: [layouts]}, "
                               f"a list of [op, layout, ...] lists or text, got a "
                               f"{type(desired_layouts).__name__}")
    if not entries:
        raise TesseraValueError("ConvertLayout needs at least one op and its layouts, e.g. "
                                "{'nn.conv2d': ['NHWC', 'HWIO']}")
    text = ";".join(e[0] + ":" + ",".join(e[1:]) for e in entries)
    return get_pass("ConvertLayout", desired_layouts=text)


def FreezeLayouts(frozen_layouts):  # noqa: N802 - the pass's name
    """ConvertLayout with index maps: ``{"nn.conv2d": [data_map, weight_map, result_map]}``
    (``tessera.layout.IndexMap`` objects or their text; ``None`` keeps that tensor's
    layout): each call becomes a frozen call_tir of the op's PrimFunc transformed by the
    maps. The pipeline's text form ``"op:map|map|map;..."`` is accepted too."""
    if isinstance(frozen_layouts, str):
        return get_pass("FreezeLayouts", frozen_layouts=frozen_layouts)
    if not frozen_layouts:
        raise TesseraValueError("FreezeLayouts needs at least one op and its maps")
    text = ";".join(op + ":" + "|".join("" if m is None else str(m) for m in maps)
                    for op, maps in dict(frozen_layouts).items())
    return get_pass("FreezeLayouts", frozen_layouts=text)


def AlterOpImpl(op_impl_map, op_buffer_transforms=None):  # noqa: N802 - the pass's name
    """TVM Relax's AlterOpImpl: every call of an op in ``op_impl_map`` (``{"add": prim_func}``)
    runs the replacement PrimFunc instead (one buffer per operand, then the result), frozen
    there. ``op_buffer_transforms`` (``{"add": [map, map, map]}``, one
    ``tessera.layout.IndexMap`` or None per parameter) gives the layouts the replacement was
    written for: operands get ``layout_transform`` into them, the result one back (and a
    crop where its map pads). The replacement is trusted to compute the op; run PlanLayouts
    after it to cancel the rewrites between neighbours. The pipeline's text form takes
    PrimFuncs of the module by name: ``AlterOpImpl(op_impls="add=my_add",
    op_buffer_transforms="add:map|map|map")``."""
    if isinstance(op_impl_map, str):
        return get_pass("AlterOpImpl", op_impls=op_impl_map,
                        op_buffer_transforms=op_buffer_transforms or "")
    transforms = dict(op_buffer_transforms or {})
    unknown = sorted(set(transforms) - set(op_impl_map))
    if unknown:
        raise TesseraValueError(f"AlterOpImpl: op_buffer_transforms names {unknown}, which "
                                "op_impl_map gives no replacement")
    ops = list(op_impl_map)
    maps = [list(transforms.get(op) or []) for op in ops]
    return wrap_pass(_core.layout.alter_op_impl(ops, [op_impl_map[op] for op in ops], maps))


__all__ += ["AlterOpImpl", "ConvertLayout", "FreezeLayouts"]
