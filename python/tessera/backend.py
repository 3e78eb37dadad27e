"""Backends declared from Python, for experiments with fusion rules.

``register_external(name, patterns)`` registers a pattern table and a library backend
whose partitions the native code generator compiles, so ``partition_for``, Collage
(``target=["native", name]``), ``build``, ``run`` and save/load all work with it::

    from tessera.pattern import is_op, wildcard
    tessera.backend.register_external("example", [
        ("relu", is_op("nn.relu")(wildcard())),
        ("add", is_op("add")(wildcard(), wildcard())),
    ])
    ex = tessera.build(mod, target="native -compiler=example")

Labels get the ``"<name>."`` prefix when they lack it. Registering a name again replaces
it; the built-in names (native, interp, dnnl, blas, host) are refused. A saved executable
with such partitions loads in any process (its kernels are compiled code).
"""
from . import _core

__all__ = ["register_external"]


def register_external(name, patterns, compile_with="native"):
    """Registers external backend ``name`` from ``patterns``, a list of ``(label, pattern)``
    or ``(label, pattern, predicate)``. Its partitions are compiled by the native code
    generator (``compile_with="native"``), or by a function ``compile_with(partition,
    c_name) -> str`` writing each kernel in C: ``int32_t c_name(void* const* buffers, const
    TsKernelEnv* env)``, buffers being the partition's parameters (tuples flattened) then
    its outputs, dense row-major, returning 0 (the ABI's declarations come first)."""
    _core.register_external(name, list(patterns), compile_with)
