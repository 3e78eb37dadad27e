"""Pass instruments: hooks around pass contexts and passes, as in ``tvm.instrument``.

Subclass ``PassInstrument`` (or decorate a plain class with ``@pass_instrument``) and
define any of ``enter_pass_ctx()``, ``exit_pass_ctx()``, ``should_run(mod, info)``,
``run_before_pass(mod, info)``, ``run_after_pass(mod, info)`` and
``run_after_pass_failed(mod, info)``; hooks that are not defined cost nothing. Exceptions
raised in hooks propagate unchanged, following TVM's protocol (see PassContext).
"""
import functools
import inspect

from . import _core

__all__ = [
    "PassInstrument", "pass_instrument", "PassTimingInstrument", "PassPrintingInstrument",
    "PrintBeforeAll", "PrintAfterAll", "PrintAfterChange", "DumpIR", "Verifier",
]


class PassInstrument(_core.PassInstrument):
    """Base class of instruments written in Python; the name is the class name.

    Subclasses need not call ``super().__init__()`` (it is idempotent and also run
    before the subclass's own ``__init__``).
    """

    def __init__(self):
        if not self.__dict__.get("_ts_initialized", False):
            _core.PassInstrument.__init__(self, type(self).__name__)
            self.__dict__["_ts_initialized"] = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        user_init = cls.__dict__.get("__init__")
        if user_init is None or getattr(user_init, "_ts_wrapped", False):
            return

        @functools.wraps(user_init)
        def __init__(self, *args, **kw):
            PassInstrument.__init__(self)
            user_init(self, *args, **kw)

        __init__._ts_wrapped = True
        cls.__init__ = __init__


def _wrap_class_pass_instrument(pi_cls):
    class PyPassInstrument(pi_cls, PassInstrument):
        def __init__(self, *args, **kwargs):
            pi_cls.__init__(self, *args, **kwargs)

    functools.update_wrapper(PyPassInstrument.__init__, pi_cls.__init__)
    PyPassInstrument.__name__ = pi_cls.__name__
    PyPassInstrument.__qualname__ = pi_cls.__qualname__
    PyPassInstrument.__doc__ = pi_cls.__doc__
    PyPassInstrument.__module__ = pi_cls.__module__
    return PyPassInstrument


def pass_instrument(pi_cls=None):
    """Decorates a plain class into a PassInstrument subclass (``@pass_instrument`` or
    ``pass_instrument(cls)``); a non-class raises TypeError."""

    def create_pass_instrument(pi_cls):
        if not inspect.isclass(pi_cls):
            raise TypeError("pi_cls must be a class")
        return _wrap_class_pass_instrument(pi_cls)

    if pi_cls:
        return create_pass_instrument(pi_cls)
    return create_pass_instrument


PassTimingInstrument = _core.PassTimingInstrument
DumpIR = _core.DumpIR
Verifier = _core.Verifier


class PassPrintingInstrument(_core.PrintIRInstrument):
    """Prints the module to stdout before the passes named in ``print_before_pass_names``
    and after those in ``print_after_pass_names``."""

    def __init__(self, print_before_pass_names=(), print_after_pass_names=()):
        super().__init__(before_passes=list(print_before_pass_names),
                         after_passes=list(print_after_pass_names))


class PrintBeforeAll(_core.PrintIRInstrument):
    """Prints the module to stdout before every pass."""

    def __init__(self):
        super().__init__(before_all=True)


class PrintAfterAll(_core.PrintIRInstrument):
    """Prints the module to stdout after every pass."""

    def __init__(self):
        super().__init__(after_all=True)


class PrintAfterChange(_core.PrintIRInstrument):
    """Prints the module to stdout after every pass that changed it (structural hash)."""

    def __init__(self):
        super().__init__(after_change=True)
