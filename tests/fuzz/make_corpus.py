"""Writes the fuzzers' seed corpora into tests/fuzz/corpus/<harness>/ from small models:
the ONNX test models (as ONNX bytes), their imported and lowered modules (as text and JSON)
and executables built from them for each backend (as the body fuzz_executable expects).
Run with the build's package on the path:
  PYTHONPATH=build/python /usr/bin/python3 tests/fuzz/make_corpus.py"""
import hashlib
import os
import struct
import sys

import onnx

import tessera
from tessera.frontend import from_onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import onnx_models  # noqa: E402  (the test suite's model builders)

HEADER_LEN, DIGEST_LEN = 16, 64  # "TESSERA-EXEC" + version; SHA-256 in hex
TREE_MAGIC = b"TSMODTREE1"


def models():
    """Small models covering convolutions, pooling, dense layers, normalisation and the
    shape sub-graphs of a transformer; weights stay small so seeds stay small."""
    yield "mnist_cnn", onnx_models.mnist_cnn()
    yield "mlp", onnx_models.mlp(dims=(16, 8, 4))
    yield "resnet_block", onnx_models.resnet_block(c=4, hw=6)
    yield "mobilenet_block", onnx_models.mobilenet_v2_block(c=4, hw=5, expand=2)
    yield "fire", onnx_models.squeezenet_fire(hw=9)
    yield "transformer", onnx_models.transformer_layer(seq=4, d=8, heads=2, ff=8)


def write(harness, name, data):
    folder = os.path.join(HERE, "corpus", harness)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def read_string(data, pos):
    (n,) = struct.unpack_from("<Q", data, pos)
    return data[pos + 8:pos + 8 + n], pos + 8 + n


def strip_native_code(tree):
    """The module tree with each native module's shared object emptied: the harness stands
    in for native code, so those bytes would only be mutated in vain."""
    assert tree.startswith(TREE_MAGIC)
    out, pos = bytearray(TREE_MAGIC), len(TREE_MAGIC)

    def walk():
        nonlocal pos
        kind, pos = read_string(tree, pos)
        payload, pos = read_string(tree, pos)
        if kind == b"native":
            payload = b""
        (n,) = struct.unpack_from("<Q", tree, pos)
        pos += 8
        for part in (kind, payload):
            out.extend(struct.pack("<Q", len(part)) + part)
        out.extend(struct.pack("<Q", n))
        for _ in range(n):
            walk()

    walk()
    return bytes(out)


def executable_body(exe, path):
    """The bytes between the header and the digest, with native code emptied."""
    exe.save(path)
    with open(path, "rb") as f:
        data = f.read()
    os.remove(path)
    body = data[HEADER_LEN:-DIGEST_LEN]
    assert data[-DIGEST_LEN:].decode() == hashlib.sha256(data[:-DIGEST_LEN]).hexdigest()
    parts, pos = [], 0
    for _ in range(3):  # program JSON, constants, module tree
        part, pos = read_string(body, pos)
        parts.append(part)
    parts[2] = strip_native_code(parts[2])
    return b"".join(struct.pack("<Q", len(p)) + p for p in parts)


def main():
    targets = {"native": "native -num_threads=1", "interp": "interp"}
    names = {t["name"] for t in tessera.list_targets()}
    if "dnnl" in names:
        targets["dnnl"] = "native -num_threads=1 -libs=dnnl"
    if "blas" in names:
        targets["blas"] = "native -num_threads=1 -libs=blas"
    tmp = os.path.join(HERE, "corpus", ".tmp.tsx")
    for name, model in models():
        write("onnx", name + ".onnx", model.SerializeToString())
        mod = from_onnx(model)
        write("text", name + ".txt", mod.astext())
        write("text", name + "_typed.txt", mod.astext(show_types=True))
        write("json", name + ".json", mod.to_json())
        lowered = tessera.compiler.lower(mod)
        write("text", name + "_lowered.txt", lowered.astext())
        write("json", name + "_lowered.json", lowered.to_json())
        for tname, target in targets.items():
            write("executable", f"{name}_{tname}.bin",
                  executable_body(tessera.build(mod, target), tmp))


if __name__ == "__main__":
    main()
