"""Layouts as index maps: ``IndexMap`` is an affine map of tensor indices with floordiv and
floormod by constants (TVM's ``IndexMap``), the representation of every layout rewrite::

    from tessera.layout import IndexMap

    m = IndexMap.from_func(lambda n, c, h, w: (n, c // 4, h, w, c % 4))
    m == IndexMap.from_layouts("NCHW", "NCHW4c")      # True (names do not matter)
    m.map_shape((1, 14, 8, 8))                         # (1, 4, 8, 8, 4): padded as TVM pads
    inv, pad = m.non_surjective_inverse((1, 14, 8, 8)) # pad: Python text, true at padding
    m.compose(inv).is_identity((1, 14, 8, 8))          # True, proven exactly
    m.apply(weights, pad_value=0.0)                    # NumPy array in the new layout

Shapes, inverses, composition and identity are exact: every accepted map is a sum of
"splits" ``(x + offset) // lower % extent`` of its input variables.

PrimFuncs take layouts through TVM's schedule primitives::

    f = transform_layout(f, "A", IndexMap.from_layouts("NCHW", "NHWC"))   # or a param index
    f = transform_block_layout(f, "sum", IndexMap.from_func(lambda n, c, h, w: (n, h, w, c)))
    suggest_layout_transforms(f, [IndexMap.from_layouts("NCHW", "NCHW4c")])  # per param

and the pass ``tessera.transform.HoistLayoutRewrite()`` lifts a PrimFunc's layout-rewrite
prologue into the graph, where rewrites of constant weights fold away.

``PlanLayouts`` reads how a layout flows through an op from the op's tensor-level code; for
an op it cannot read, a rule says it (the result of ``call`` wanted under ``m``: compute it
from rewritten operands, or return None to stop the flow there)::

    nhwc = IndexMap.from_layouts("NCHW", "NHWC")
    register_flow_rule("nn.softmax", lambda call, m:
                       (nn.softmax(call.args[0], axis=3), [m]) if m == nhwc else None)
"""
import inspect
import numbers

from . import _core
from .error import TesseraTypeError

__all__ = ["IndexMap", "register_flow_rule", "suggest_layout_transforms",
           "transform_block_layout", "transform_layout", "unregister_flow_rule"]

IndexMap = _core.layout.IndexMap
transform_layout = _core.layout.transform_layout
transform_block_layout = _core.layout.transform_block_layout
suggest_layout_transforms = _core.layout.suggest_layout_transforms
register_flow_rule = _core.layout.register_flow_rule
unregister_flow_rule = _core.layout.unregister_flow_rule


class _Index:
    """A symbolic index a Python function passed to ``IndexMap.from_func`` computes with:
    each operation spells out its text, fully parenthesized."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    @staticmethod
    def _text(value, op):
        if isinstance(value, _Index):
            return value.text
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            return str(int(value))
        raise TesseraTypeError(f"IndexMap.from_func: `{op}` with a {type(value).__name__}; "
                               "index maps use ints and the indices only")

    def _binary(self, op, other, reflected=False):
        a, b = self.text, self._text(other, op)
        return _Index(f"({b} {op} {a})" if reflected else f"({a} {op} {b})")

    def __add__(self, other):
        return self._binary("+", other)

    def __radd__(self, other):
        return self._binary("+", other, True)

    def __sub__(self, other):
        return self._binary("-", other)

    def __rsub__(self, other):
        return self._binary("-", other, True)

    def __mul__(self, other):
        return self._binary("*", other)

    def __rmul__(self, other):
        return self._binary("*", other, True)

    def __floordiv__(self, other):
        return self._binary("//", other)

    def __rfloordiv__(self, other):
        return self._binary("//", other, True)

    def __mod__(self, other):
        return self._binary("%", other)

    def __rmod__(self, other):
        return self._binary("%", other, True)

    def __truediv__(self, other):
        raise TesseraTypeError("IndexMap.from_func: `/` is not an index operation; use `//` "
                               "(floordiv) and `%` (floormod)")

    __rtruediv__ = __truediv__

    def __neg__(self):
        return _Index(f"(-{self.text})")

    def __pos__(self):
        return self

    def __bool__(self):
        raise TesseraTypeError("IndexMap.from_func: an index has no truth value (the "
                               "function must not branch on its indices)")


def _lambda_text(func):
    """The text form of the map ``func`` computes (``IndexMap.from_func`` calls this)."""
    if not callable(func):
        raise TesseraTypeError(f"IndexMap.from_func: expected a function, got a "
                               f"{type(func).__name__}")
    params = inspect.signature(func).parameters.values()
    names = []
    for p in params:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.default is not p.empty:
            raise TesseraTypeError(f"IndexMap.from_func: parameter '{p.name}' must be a plain "
                                   "positional parameter (one per input index)")
        names.append(p.name)
    result = func(*(_Index(n) for n in names))
    outputs = list(result) if isinstance(result, (tuple, list)) else [result]
    texts = [_Index._text(o, "return") for o in outputs]
    trailing = "," if len(texts) == 1 else ""
    return f"lambda {', '.join(names)}: ({', '.join(texts)}{trailing})"
