"""A deployed Python service imports only the runtime: ``tessera.runtime.load`` runs what
``tessera.build`` saved (native, oneDNN and BLAS kernels) in a process that never loads
the compiler extension or library."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera

MODEL = """
def @main(%x: Tensor[(2, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32],
          %d: Tensor[(10, 256), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3]);
  %1 = nn.relu(%0);
  %2 = reshape(%1, newshape=[2, 256]);
  nn.dense(%2, %d)
}
"""

TARGETS = {
    "native": "native -num_threads=1",
    "dnnl": "native -num_threads=1 -compiler=dnnl",
    "blas": "native -num_threads=1 -libs=blas",
}

SERVICE = """
import sys
import numpy as np
import tessera.runtime
ex = tessera.runtime.load(sys.argv[1])
inputs = {name: np.load(f"{sys.argv[2]}/{name}.npy") for name in ex.input_names}
np.save(f"{sys.argv[2]}/got.npy", ex(**inputs))
kinds = sorted({row["backend"] for row in ex.profile(**inputs, repeat=1)["rows"]})
maps = open("/proc/self/maps").read()
print(",".join(kinds))
print("compiler-extension" if "tessera._core" in sys.modules else "runtime-only")
print("compiler-library" if "libtessera.so" in maps else "no-compiler-library")
"""


def available(kind):
    return kind == "native" or kind in [t["name"] for t in tessera.list_targets()]


@pytest.mark.parametrize("kind", sorted(TARGETS))
def test_saved_program_runs_in_a_runtime_only_process(tmp_path, kind):
    if not available(kind):
        pytest.skip(f"this build has no {kind} backend")
    rng = np.random.default_rng(3)
    ex = tessera.build(tessera.parse(MODEL), target=TARGETS[kind])
    inputs = {name: rng.uniform(-1, 1, shape).astype(dtype)
              for name, (shape, dtype) in zip(ex.input_names, ex.input_types)}
    for name, value in inputs.items():
        np.save(tmp_path / f"{name}.npy", value)
    want = tessera.evaluate(tessera.parse(MODEL), **inputs)
    assert ex.output_types == [(want.shape, str(want.dtype))]
    ex.save(tmp_path / "model.tsx")
    r = subprocess.run([sys.executable, "-c", SERVICE, str(tmp_path / "model.tsx"), str(tmp_path)],
                       capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    kinds, extension, library = r.stdout.split()
    assert kind in kinds.split(",")
    assert extension == "runtime-only"
    assert library == "no-compiler-library"
    np.testing.assert_allclose(np.load(tmp_path / "got.npy"), want, rtol=1e-5, atol=1e-5)


def test_build_returns_the_runtime_executable_class():
    ex = tessera.build(tessera.parse(MODEL), target="native -num_threads=1")
    assert isinstance(ex, tessera.runtime.Executable)
    assert type(ex._core).__module__ == "tessera._runtime"
    # tessera.load also loads programs with interpreted kernels (it brings the compiler).
    interp = tessera.build(tessera.parse(MODEL), target="interp")
    assert isinstance(interp, tessera.runtime.Executable)


def test_tessera_load_reads_interpreted_programs_in_a_fresh_process(tmp_path):
    tessera.build(tessera.parse(MODEL), target="interp").save(tmp_path / "interp.tsx")
    code = ("import sys, tessera; ex = tessera.load(sys.argv[1]); print(ex.input_names)")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "interp.tsx")],
                       capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert "['x', 'w', 'd']" in r.stdout
    # The runtime alone says what it lacks.
    code = ("import sys, tessera.runtime; tessera.runtime.load(sys.argv[1])")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "interp.tsx")],
                       capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert r.returncode != 0 and "TesseraNotFoundError" in r.stderr and "interp" in r.stderr


def test_runtime_errors_are_the_package_classes(tmp_path):
    bad = tmp_path / "bad.tsx"
    bad.write_bytes(b"TESSERA-EXEC" + b"\0" * 40)
    with pytest.raises(tessera.TesseraParseError, match="truncated"):
        tessera.runtime.load(bad)
    # One flipped byte anywhere is caught by the file's SHA-256.
    good = tmp_path / "good.tsx"
    tessera.build(tessera.parse(MODEL), target="native -num_threads=1").save(good)
    data = bytearray(good.read_bytes())
    data[len(data) // 2] ^= 0x10
    bad.write_bytes(bytes(data))
    with pytest.raises(tessera.TesseraParseError, match="checksum"):
        tessera.runtime.load(bad)
    with pytest.raises(tessera.TesseraNotFoundError):
        tessera.runtime.load(tmp_path / "missing.tsx")


@pytest.mark.parametrize("kind", sorted(TARGETS))
def test_one_program_runs_on_four_threads_at_once(tmp_path, kind):
    """A service loads once and runs on worker threads, concurrently: each call gets its
    own memory, every kernel kind allows it (oneDNN primitives get a caller-provided
    scratchpad), and every output matches the interpreter on that call's inputs."""
    import threading
    if not available(kind):
        pytest.skip(f"this build has no {kind} backend")
    built = tessera.build(tessera.parse(MODEL), target=TARGETS[kind])
    built.save(tmp_path / "model.tsx")
    ex = tessera.runtime.load(tmp_path / "model.tsx")
    cases = []
    for k in range(4):
        rng = np.random.default_rng(10 + k)
        inputs = {name: rng.uniform(-1, 1, shape).astype(dtype)
                  for name, (shape, dtype) in zip(ex.input_names, ex.input_types)}
        cases.append((inputs, tessera.evaluate(tessera.parse(MODEL), **inputs)))
    errors, checked = [], []
    start = threading.Barrier(4)

    def work(k):
        try:
            inputs, want = cases[k]
            start.wait()
            for _ in range(5):
                np.testing.assert_allclose(ex(**inputs), want, rtol=1e-5, atol=1e-5)
                checked.append(k)
        except Exception as err:  # noqa: BLE001 - reported below
            errors.append(err)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert sorted(checked) == sorted(list(range(4)) * 5)
