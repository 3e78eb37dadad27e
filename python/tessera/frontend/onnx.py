"""The ONNX importer (C++, opsets 11-17): ``from_onnx(path_or_model, shape_overrides=...)``
returns an :class:`tessera.IRModule` whose ``@main`` takes the graph inputs."""
import os

from .. import _core
from ..error import TesseraTypeError

__all__ = ["from_onnx", "onnx_supported_ops", "onnx_supported_opsets"]


def _shape_map(shape_overrides):
    if shape_overrides is None:
        return {}
    if not isinstance(shape_overrides, dict):
        raise TesseraTypeError("shape_overrides must be a dict of input name -> shape")
    return {str(k): [int(d) for d in v] for k, v in shape_overrides.items()}


def from_onnx(model, shape_overrides=None, params_as_inputs=False):
    """Imports an ONNX model.

    ``model`` is a file path (str or os.PathLike), the serialized bytes of a ModelProto,
    or an ``onnx.ModelProto``. ``shape_overrides`` maps input names to static shapes (needed
    for inputs with symbolic dimensions). With ``params_as_inputs`` the initializers
    become ``@main`` parameters after the graph inputs instead of constants.
    Errors raise :class:`tessera.TesseraError` subclasses (unsupported ops name the op
    type, node, opset and attribute)."""
    shapes = _shape_map(shape_overrides)
    if isinstance(model, (bytes, bytearray, memoryview)):
        return _core.onnx_import_bytes(bytes(model), shapes, bool(params_as_inputs))
    if hasattr(model, "SerializeToString") and hasattr(model, "graph"):
        name = getattr(model.graph, "name", "") or "model"
        return _core.onnx_import_bytes(model.SerializeToString(), shapes,
                                       bool(params_as_inputs), f"<onnx.ModelProto {name}>")
    try:
        path = os.fspath(model)
    except TypeError:
        raise TesseraTypeError("from_onnx expects a path, bytes or an onnx.ModelProto, got "
                               f"a {type(model).__name__}") from None
    return _core.onnx_import_file(path, shapes, bool(params_as_inputs))


def onnx_supported_ops():
    """The ONNX op types (default domain) the importer converts, sorted."""
    return list(_core.onnx_supported_ops())


def onnx_supported_opsets():
    """The (lowest, highest) default-domain opset the importer reads."""
    return tuple(_core.onnx_supported_opsets())
