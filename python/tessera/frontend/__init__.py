"""Frontends: importing models from other formats. ``from_onnx`` reads an ONNX model."""
from .onnx import from_onnx, onnx_supported_ops, onnx_supported_opsets  # noqa: F401

__all__ = ["from_onnx", "onnx_supported_ops", "onnx_supported_opsets"]
