"""Op builders: what the generated builder functions (_ops.py, nn.py, ... written by
scripts/gen_python_api.py) call, call_tir, and builders made at import for ops a program
registered beyond the built-in ones."""
import inspect
import keyword
import sys
import types
from dataclasses import dataclass

import numpy as np

from .. import _core
from ..error import TesseraTypeError
from ..ir import Expr, GlobalVar, Type, as_expr, dtype_name


@dataclass(frozen=True)
class AttrSchema:
    """One attribute of an op: name, accepted kind, default and description."""

    name: str
    type: str
    default: object
    required: bool
    description: str


@dataclass(frozen=True)
class OpSchema:
    """What the registry knows about an op."""

    name: str
    description: str
    inputs: tuple
    variadic: bool
    pattern: str
    pattern_value: int
    attrs: tuple


def list_ops():
    """Names of every registered op, sorted."""
    return list(_core.list_ops())


def get_schema(name):
    """The OpSchema of op ``name`` (TesseraNotFoundError for an unknown op)."""
    raw = _core.op_schema(name)
    attrs = tuple(AttrSchema(**a) for a in raw.pop("attrs"))
    return OpSchema(attrs=attrs, **raw)


# Every op accepts this call attribute besides its schema's (a keyword-only argument of
# every builder): layout planning leaves the layouts of a frozen call's operands and result
# as they are.
FROZEN_LAYOUT = "frozen_layout"


def _py_name(name):
    return name + "_" if keyword.iskeyword(name) else name


def _attr_value(value):
    """Converts dtype objects to their names and index maps to their text form
    (layout_transform's index_map); other values go to C++ as they are."""
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return dtype_name(value)
    if isinstance(value, _core.layout.IndexMap):
        return str(value)
    return value


def _build_signature(schema):
    params = []
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    for name in schema.inputs:
        params.append(inspect.Parameter(_py_name(name), kind))
    if schema.variadic:
        params.append(inspect.Parameter("more_inputs", inspect.Parameter.VAR_POSITIONAL))
        kind = inspect.Parameter.KEYWORD_ONLY
    seen_default = False
    for attr in schema.attrs:
        if attr.required and not seen_default:
            params.append(inspect.Parameter(_py_name(attr.name), kind))
        elif attr.required:
            # A required attribute after optional ones can only be passed by keyword.
            params.append(inspect.Parameter(_py_name(attr.name), inspect.Parameter.KEYWORD_ONLY))
        else:
            seen_default = True
            params.append(inspect.Parameter(_py_name(attr.name), kind, default=attr.default))
    params.append(inspect.Parameter(FROZEN_LAYOUT, inspect.Parameter.KEYWORD_ONLY, default=False))
    params.sort(key=lambda p: p.kind)
    return inspect.Signature(params)


def _doc(schema):
    lines = [f"{schema.description}" if schema.description else schema.name, ""]
    lines.append(f"Op ``{schema.name}`` (pattern: {schema.pattern}).")
    lines.append("")
    lines.append("Inputs: " + ", ".join(schema.inputs) + (" (variadic)" if schema.variadic else ""))
    if schema.attrs:
        lines.append("")
        lines.append("Attributes:")
        for a in schema.attrs:
            default = "required" if a.required else f"default {a.default!r}"
            lines.append(f"    {a.name} ({a.type}, {default}): {a.description}")
    lines.append("")
    lines.append(f"{FROZEN_LAYOUT} (keyword, default False): layout planning must not change the "
                 "layouts of this call's operands and result.")
    return "\n".join(lines)


def make_builder(schema):
    """The Python builder function of one op."""
    signature = _build_signature(schema)
    input_names = [_py_name(n) for n in schema.inputs]
    attr_names = [(_py_name(a.name), a.name) for a in schema.attrs]
    op_name = schema.name

    def builder(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as err:
            raise TesseraTypeError(f"op '{op_name}': {err}") from None
        given = bound.arguments
        raw_inputs = [given[n] for n in input_names] + list(given.get("more_inputs", ()))
        like = [v for v in raw_inputs if isinstance(v, Expr)]
        inputs = [as_expr(v, like, f"op '{op_name}': input '{n}'")
                  for v, n in zip(raw_inputs, input_names + ["more_inputs"] * len(raw_inputs))]
        attrs = {name: _attr_value(given[py]) for py, name in attr_names if py in given}
        if given.get(FROZEN_LAYOUT):
            attrs[FROZEN_LAYOUT] = True
        return _core.make_op_call(op_name, inputs, attrs)

    short = op_name.rsplit(".", 1)[-1]
    builder.__name__ = _py_name(short)
    builder.__qualname__ = builder.__name__
    builder.__signature__ = signature
    builder.__doc__ = _doc(schema)
    builder.schema = schema
    return builder


_SCHEMAS = {}


def _cached_schema(name):
    if name not in _SCHEMAS:
        _SCHEMAS[name] = get_schema(name)
    return _SCHEMAS[name]


def _is_default(value, attr):
    """True when ``value`` is the attribute's registered default (then it is not passed,
    exactly as if the caller had left it out)."""
    if attr.required or type(value) is not type(attr.default):
        return False
    try:
        return bool(value == attr.default)
    except (TypeError, ValueError):
        return False


def call_op(op_name, given):
    """The call of ``op_name`` a generated builder makes from its arguments (``given``: the
    builder's locals(), by Python parameter name)."""
    schema = _cached_schema(op_name)
    input_names = [_py_name(n) for n in schema.inputs]
    raw_inputs = [given[n] for n in input_names] + list(given.get("more_inputs", ()))
    like = [v for v in raw_inputs if isinstance(v, Expr)]
    inputs = [as_expr(v, like, f"op '{op_name}': input '{n}'")
              for v, n in zip(raw_inputs, input_names + ["more_inputs"] * len(raw_inputs))]
    attrs = {}
    for a in schema.attrs:
        value = given[_py_name(a.name)]
        if not _is_default(value, a):
            attrs[a.name] = _attr_value(value)
    if given.get(FROZEN_LAYOUT):
        attrs[FROZEN_LAYOUT] = True
    return _core.make_op_call(op_name, inputs, attrs)


def call_tir(func, args, out_type):
    """Destination-passing call of PrimFunc ``func`` (a GlobalVar or its name) on the
    tuple ``args``; the runtime allocates outputs of type ``out_type``."""
    if isinstance(func, str):
        func = GlobalVar(func)
    if not isinstance(out_type, Type):
        raise TesseraTypeError("call_tir: out_type must be a Type")
    args = as_expr(list(args) if isinstance(args, (list, tuple)) else args, None,
                   "call_tir: args")
    return _core.make_op_call("call_tir", [func, args], {}, [out_type])


def populate(namespace, package_name):
    """Gives every registered op's builder its ``schema`` and adds a builder for each op the
    generated modules do not have (ops registered by a program embedding Tessera) to
    ``namespace`` (the tessera.op package); dotted names go to sub-namespaces
    (``nn.conv2d`` -> tessera.op.nn.conv2d)."""
    modules = {}
    names = []
    for name in _core.list_ops():
        schema = _cached_schema(name)
        *prefix, short = name.split(".")
        target = namespace
        path = package_name
        for part in prefix:
            path = f"{path}.{part}"
            if path not in modules:
                module = sys.modules.get(path)
                if not isinstance(module, types.ModuleType) or getattr(module, "_generated", False):
                    module = types.ModuleType(path, f"Builders of the {path[len(package_name) + 1:]}.* ops.")
                    module._generated = True
                    module.__all__ = []
                    sys.modules[path] = module
                modules[path] = module
                if isinstance(target, dict):
                    target[part] = module
                else:
                    setattr(target, part, module)
            target = modules[path]
        existing = (target.get(_py_name(short)) if isinstance(target, dict)
                    else getattr(target, _py_name(short), None))
        if existing is not None:  # generated (or call_tir): only its schema is added
            existing.schema = schema
        elif isinstance(target, dict):
            target[_py_name(short)] = make_builder(schema)
        else:
            setattr(target, _py_name(short), make_builder(schema))
            target.__all__.append(_py_name(short))
        names.append(name)
    return names
