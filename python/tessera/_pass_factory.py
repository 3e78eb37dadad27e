"""What the generated pass factories (tessera/_passes.py) call: the registered pass with the
options given, wrapped as a tessera.transform Pass."""
import keyword

from . import _core


def registered_pass(name, given):
    """Registered pass ``name`` with ``given`` (a factory's locals(), by Python parameter
    name: an option named like a Python keyword takes a trailing underscore)."""
    from .transform import wrap_pass  # transform imports the factories

    options = {(k[:-1] if k.endswith("_") and keyword.iskeyword(k[:-1]) else k): v
               for k, v in given.items()}
    return wrap_pass(_core.get_pass(name, options))
