"""Tensors shared without copies: ``tessera.nd.NDArray`` and DLPack exchange.

``from_dlpack(x)`` wraps any object with ``__dlpack__`` (a PyTorch tensor, a NumPy array,
another ``NDArray``) or a DLPack capsule without copying; an ``NDArray`` in turn has
``__dlpack__``/``__dlpack_device__``, so ``numpy.from_dlpack(a)`` and
``torch.from_dlpack(a)`` view its memory. Only CPU, C-contiguous tensors are exchanged.
"""
from . import _runtime

__all__ = ["NDArray", "array", "from_dlpack"]

#: A CPU tensor (row-major): ``shape``, ``dtype`` (a name such as ``"float32"``),
#: ``ndim``, ``numpy()`` (a zero-copy view; bfloat16 becomes a float32 copy) and the
#: DLPack protocol (``__dlpack__``, ``__dlpack_device__``).
NDArray = _runtime.NDArray


def from_dlpack(obj):
    """An :class:`NDArray` sharing the memory of ``obj`` (anything with ``__dlpack__``, or
    a DLPack capsule, which is consumed). Non-CPU, strided or unsupported-dtype tensors
    raise an error naming the problem."""
    return _runtime.nd_from_dlpack(obj)


def array(obj, copy=True):
    """An :class:`NDArray` from a NumPy array or DLPack tensor: a copy by default, or with
    ``copy=False`` a view of its memory when its layout allows."""
    return _runtime.nd_array(obj, copy)
