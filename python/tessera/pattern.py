"""Dataflow patterns (TVM's ``tvm.relay.dataflow_pattern``) and pattern tables.

Build patterns with :func:`wildcard`, :func:`is_op` (call the result with argument
patterns), :func:`is_constant`, :func:`is_var`, :func:`is_expr`, :func:`is_tuple`,
:func:`is_tuple_get_item` and :func:`dominates`; combine them with ``p1 | p2``,
``p.optional(f)`` (``p | f(p)``), ``p.has_attr({...})``, ``p.has_type(t)``,
``p.has_shape([...])`` and ``p.has_dtype("float32")``. ``p.match(expr)`` matches;
:func:`rewrite` applies :class:`DFPatternCallback` rewrites; :func:`partition` turns
matches into ``Composite`` functions. Backends' tables: :func:`get_pattern_table`.
"""
from . import _core

_p = _core.pattern

DFPattern = _p.DFPattern
wildcard = _p.wildcard
is_op = _p.is_op
is_expr = _p.is_expr
is_constant = _p.is_constant
is_var = _p.is_var
is_tuple_get_item = _p.is_tuple_get_item
dominates = _p.dominates
list_pattern_tables = _p.list_pattern_tables
supported_ops = _p.supported_ops
is_supported_by = _p.is_supported_by


def is_tuple(fields):
    """Matches a tuple whose fields match ``fields``."""
    return _p.is_tuple(list(fields))


def _optional(self, option_constructor):
    """TVM's ``optional``: this pattern, or ``option_constructor(self)``."""
    return self | option_constructor(self)


setattr(DFPattern, "optional", _optional)  # declared in the stub of tessera._core.pattern


class DFPatternCallback:
    """A rewrite: where ``pattern`` matches, ``callback(pre, post, node_map)`` gives the
    replacement (``node_map`` maps each pattern to the expression it matched)."""

    def __init__(self, require_type=False):
        self.require_type = require_type

    def callback(self, pre, post, node_map):  # pragma: no cover - overridden
        raise NotImplementedError("DFPatternCallback subclasses define callback()")

    def rewrite(self, func, mod=None):
        """Applies this callback to a Function until nothing changes."""
        return rewrite(self, func, mod)


def rewrite(callbacks, func, mod=None):
    """Applies ``callbacks`` (one or a list) to Function ``func`` until nothing changes."""
    if isinstance(callbacks, DFPatternCallback):
        callbacks = [callbacks]
    return _p.rewrite(list(callbacks), func, mod)


def partition(pattern, func, label, check=None):
    """Turns every match of ``pattern`` in Function ``func`` into a call of a local function
    with attribute ``Composite=label`` (``check(root) -> bool`` may veto a match)."""
    return _p.partition(pattern, func, label, check)


def match_in(pattern, expr, func):
    """Matches ``pattern`` at ``expr`` inside Function ``func`` (dominator patterns need
    the function); returns ``{pattern: expr}`` for the match, or None."""
    return _p.match_in(pattern, expr, func)


def get_pattern_table(compiler):
    """The registered table of ``compiler`` (e.g. ``"dnnl"``): a list of
    ``(label, pattern, predicate)``; predicates take the typed root of a match."""
    return _p.get_pattern_table(compiler)


def register_pattern_table(name, table):
    """Registers (or replaces) the pattern table ``name``: a list of ``(label, pattern)`` or
    ``(label, pattern, predicate)``; labels get the ``"<name>."`` prefix when they lack it.
    Enough for ``collage.candidates``/``collage.byoc(name)``; to build with it, use
    :func:`tessera.backend.register_external`. Built-in tables (dnnl, blas) are refused."""
    _p.register_pattern_table(name, list(table))


__all__ = [
    "DFPattern", "DFPatternCallback", "wildcard", "is_op", "is_expr", "is_constant", "is_var",
    "is_tuple", "is_tuple_get_item", "dominates", "rewrite", "partition", "match_in",
    "get_pattern_table", "register_pattern_table", "list_pattern_tables", "supported_ops", "is_supported_by",
]
