"""Exceptions raised by Tessera, one class per C++ ErrorKind.

Each class also derives from the matching built-in exception, so ``except ValueError``
catches a bad attribute and ``except KeyError`` an unknown function name.
"""
from ._core import (  # noqa: F401
    TesseraConfigError,
    TesseraError,
    TesseraInternalError,
    TesseraIOError,
    TesseraNotFoundError,
    TesseraParseError,
    TesseraTypeError,
    TesseraUnsupportedError,
    TesseraValueError,
)

__all__ = [
    "TesseraError",
    "TesseraParseError",
    "TesseraTypeError",
    "TesseraValueError",
    "TesseraNotFoundError",
    "TesseraConfigError",
    "TesseraUnsupportedError",
    "TesseraIOError",
    "TesseraInternalError",
]
