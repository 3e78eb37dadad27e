"""Tessera: an embeddable deep-learning compiler.

The package wraps the C++ library (``tessera._core``): ``tessera.ir`` for the IR,
``tessera.op`` for op builders generated from the op registry, ``tessera.transform`` and
``tessera.instrument`` for the pass infrastructure, and ``tessera.evaluate``/``tessera.run``
to execute modules on NumPy arrays with the reference interpreter, and ``tessera.build``
to compile them for a target (``"native"``: C for this CPU) into an ``Executable``.
"""
from . import _core  # noqa: F401
from .error import (  # noqa: F401
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
from . import ir  # noqa: F401
from . import op  # noqa: F401
from . import transform  # noqa: F401
from . import instrument  # noqa: F401
from . import runtime  # noqa: F401
from . import nd  # noqa: F401
from . import collage  # noqa: F401
from .ir import (  # noqa: F401
    Call,
    Constant,
    Function,
    FuncType,
    GlobalVar,
    IRModule,
    Let,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Var,
    assert_structural_equal,
    const,
    parse,
    structural_equal,
    structural_hash,
    var,
)
from .runtime import evaluate, evaluate_function, run  # noqa: F401
from .build import Executable, build, list_targets, load, lower  # noqa: F401
from . import pattern  # noqa: F401
from .partition import partition_for, partition_for_blas, partition_for_dnnl  # noqa: F401
from . import frontend  # noqa: F401,E402
from . import backend  # noqa: F401,E402

__version__ = "0.1.0"
