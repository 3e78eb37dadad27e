"""The classic BYOC partitioning flow: ``partition_for_dnnl`` / ``partition_for_blas``.

Each runs InferType, FoldConstant, MergeComposite (the backend's pattern table),
AnnotateTarget (its op predicates), MergeCompilerRegions and PartitionGraph, and returns a
module whose regions are global functions with ``Primitive=1``, ``Compiler="dnnl"`` and
``global_symbol`` attributes called from ``@main``.
"""
from . import _core


def partition_for(mod, compiler):
    """Partitions ``mod`` for the registered ``compiler`` (``"dnnl"``, ``"blas"``)."""
    return _core.partition_for(mod, compiler)


def partition_for_dnnl(mod):
    """Partitions ``mod`` for oneDNN (see the module docstring)."""
    return partition_for(mod, "dnnl")


def partition_for_blas(mod):
    """Partitions ``mod`` for BLAS (dense / matmul / batch_matmul, optional bias)."""
    return partition_for(mod, "blas")


__all__ = ["partition_for", "partition_for_dnnl", "partition_for_blas"]
