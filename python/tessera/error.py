"""Exceptions raised by Tessera, one class per C++ ErrorKind.

Each class also derives from the matching built-in exception, so ``except ValueError``
catches a bad attribute and ``except KeyError`` an unknown function name. The native
extensions raise these classes, looked up in ``BY_KIND`` by the C++ ErrorKind's name.
"""

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


class TesseraError(Exception):
    """Base of every error raised by Tessera."""


class TesseraParseError(TesseraError, ValueError):
    """Malformed text, JSON, pipeline or model file."""


class TesseraTypeError(TesseraError, TypeError):
    """A type or shape mismatch."""


class TesseraValueError(TesseraError, ValueError):
    """A bad value: attribute, option or argument."""


class TesseraNotFoundError(TesseraError, KeyError):
    """An unknown op, function, pass, key or file."""
    __str__ = BaseException.__str__


class TesseraConfigError(TesseraNotFoundError, AttributeError):
    """An unknown PassContext config key (an AttributeError too, as in TVM)."""


class TesseraUnsupportedError(TesseraError, NotImplementedError):
    """Valid input this build cannot handle."""


class TesseraIOError(TesseraError, OSError):
    """A file system or process failure."""


class TesseraInternalError(TesseraError, RuntimeError):
    """A broken invariant: a Tessera bug."""


#: The class raised for each C++ ErrorKind, by the kind's name (ErrorKindName).
BY_KIND = {
    "parse error": TesseraParseError,
    "type error": TesseraTypeError,
    "value error": TesseraValueError,
    "not found": TesseraNotFoundError,
    "unsupported": TesseraUnsupportedError,
    "I/O error": TesseraIOError,
    "internal error": TesseraInternalError,
}

# Shown as tessera.TesseraValueError (where users import them from) in tracebacks.
for _cls in (TesseraError, TesseraConfigError, *BY_KIND.values()):
    _cls.__module__ = "tessera"
del _cls
