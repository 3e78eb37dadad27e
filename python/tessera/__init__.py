"""Tessera: an embeddable deep-learning compiler."""
from . import _core  # noqa: F401
