"""Mapping of tessera::Error kinds to Python exception classes."""
import pytest

import tessera
from tessera import op

from helpers import add_module


def test_hierarchy():
    assert issubclass(tessera.TesseraParseError, tessera.TesseraError)
    assert issubclass(tessera.TesseraParseError, ValueError)
    assert issubclass(tessera.TesseraTypeError, TypeError)
    assert issubclass(tessera.TesseraValueError, ValueError)
    assert issubclass(tessera.TesseraNotFoundError, KeyError)
    assert issubclass(tessera.TesseraConfigError, tessera.TesseraNotFoundError)
    assert issubclass(tessera.TesseraConfigError, AttributeError)
    assert issubclass(tessera.TesseraUnsupportedError, tessera.TesseraError)
    assert issubclass(tessera.TesseraInternalError, RuntimeError)
    assert issubclass(tessera.TesseraIOError, OSError)
    assert tessera.TesseraError.__module__ == "tessera"
    assert tessera.error.__all__[0] == "TesseraError"


def test_each_kind_maps_to_its_class():
    with pytest.raises(tessera.TesseraParseError):
        tessera.parse("def @main( {")
    with pytest.raises(tessera.TesseraTypeError):
        a = tessera.var("a", shape=(2,))
        b = tessera.var("b", shape=(3,))
        tessera.transform.InferType()(tessera.IRModule.from_expr(tessera.Function([a, b], op.add(a, b))))
    with pytest.raises(tessera.TesseraValueError):
        op.nn.softmax(tessera.var("x"), axis="last")
    with pytest.raises(tessera.TesseraNotFoundError):
        tessera.transform.get_pass("NoSuchPass")
    with pytest.raises(tessera.TesseraNotFoundError):
        tessera.ir.Op.get("nope")


def test_not_found_message_is_not_quoted():
    with pytest.raises(KeyError) as info:
        add_module()["missing"]  # noqa: B018
    assert str(info.value).startswith("module has no function @missing")


def test_messages_are_preserved():
    with pytest.raises(tessera.TesseraValueError) as info:
        tessera.ir.Call(tessera.ir.Op.get("nn.conv2d"), [tessera.var("x"), tessera.var("w")],
                        {"bogus": 1})
    assert str(info.value).startswith("op 'nn.conv2d': unknown attribute 'bogus' (valid: strides,")


def test_internal_and_io_errors(tmp_path):
    with pytest.raises(tessera.TesseraError) as info:
        tessera.runtime.read_npy(tmp_path / "absent.npy")
    assert isinstance(info.value, (tessera.TesseraIOError, tessera.TesseraNotFoundError))


@pytest.mark.parametrize("shape,text", [([2**62, 4], "too many elements"),
                                        ([2**61, 2], "more than 2\\^63 bytes")])
def test_types_whose_size_overflows_are_type_errors(shape, text):
    """Once compiled into 0-byte buffers and run out of bounds: now type inference refuses
    a tensor whose element count or byte size does not fit int64, naming op and shape."""
    mod = tessera.parse(f"""def @main(%x: Tensor[(), float32]) {{
  %0 = full(%x, shape={shape}, dtype="float32");
  sum(%0)
}}""")
    with pytest.raises(tessera.TesseraTypeError, match=f"op 'full'.*{text}"):
        tessera.build(mod, target="native -num_threads=1")
    with pytest.raises(tessera.TesseraTypeError, match="parameter %x.*too large"):
        tessera.build(tessera.parse(f"def @main(%x: Tensor[{tuple(shape)}, float32]) {{ %x }}"))
