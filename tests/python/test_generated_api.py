"""The op builders and pass factories are real functions in source files, written from the
registries by scripts/gen_python_api.py; these tests fail when the files fall behind."""
import inspect
import os
import subprocess
import sys

import tessera
from tessera import op, transform

from conftest import ROOT


def test_generated_files_match_the_registries():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_python_api.py"), "--check"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr


def test_builders_and_passes_are_source_functions():
    # Defined in a module's source (so help(), IDEs and stub generators see them), not
    # made at import time.
    for fn in (op.add, op.nn.conv2d, op.annotation.compiler_begin, transform.FuseOps):
        assert inspect.isfunction(fn)
        source = inspect.getsource(fn)
        assert source.startswith(f"def {fn.__name__}("), source[:80]
    assert op.nn.conv2d.__module__ == "tessera.op.nn"
    assert "conv2d" in dir(op.nn) and "FuseOps" in dir(transform)
    assert "strides=(1, 1)" in str(inspect.signature(op.nn.conv2d))
    assert transform.FuseOps.__module__ == "tessera._passes"


def test_defaults_given_explicitly_build_the_same_call():
    x = tessera.var("x", shape=(1, 4, 8, 8))
    w = tessera.var("w", shape=(4, 4, 3, 3))
    plain = op.nn.conv2d(x, w)
    explicit = op.nn.conv2d(x, w, strides=(1, 1), padding=(0, 0), groups=1)
    assert tessera.structural_equal(plain, explicit)
    assert str(transform.FuseOps(max_depth=256)) == str(transform.FuseOps()) == "FuseOps"


TYPED_USE = """
import numpy as np
import tessera
from tessera import op, transform

x = tessera.var("x", shape=(2, 3))
y = op.nn.relu(op.add(x, x)) * 2.0
mod = tessera.IRModule.from_expr(tessera.Function([x], y))
with transform.PassContext(opt_level=3):
    mod = transform.Sequential([transform.InferType(), transform.FuseOps(max_depth=4)])(mod)
exe = tessera.build(mod, "native -num_threads=1")
out = exe(x=np.ones((2, 3), dtype=np.float32))
names: list = tessera._core.list_ops()
db = tessera.collage.CostDatabase("costs.db")
size: int = len(db)
"""

MISTAKES = """
import tessera
from tessera import op, transform

x = tessera.var("x", shape=(2, 3))
op.nn.conv2d(x, x, pads=1)
transform.FuseOps(depth=3)
n: int = tessera._core.list_ops()
tessera.collage.fingerprint_hash(5)
"""


def mypy(tmp_path, source):
    """mypy (Debian's) on `source`, seeing the package's sources, py.typed and stubs."""
    path = tmp_path / "use.py"
    path.write_text(source)
    env = dict(os.environ, MYPYPATH=str(ROOT / "python"))
    return subprocess.run(["mypy", "--cache-dir", str(tmp_path / "cache"), str(path)],
                          capture_output=True, text=True, env=env, timeout=300)


def test_mypy_checks_the_package_and_a_program_using_it(tmp_path):
    assert (ROOT / "python" / "tessera" / "py.typed").exists()
    res = mypy(tmp_path, TYPED_USE)
    # Clean: no error in the program nor in the package's own sources and stubs.
    assert res.returncode == 0, res.stdout + res.stderr


def test_mypy_finds_mistakes_through_the_stubs_and_generated_functions(tmp_path):
    res = mypy(tmp_path, MISTAKES)
    assert res.returncode == 1
    assert 'Unexpected keyword argument "pads" for "conv2d"' in res.stdout
    assert 'Unexpected keyword argument "depth" for "FuseOps"' in res.stdout
    assert 'expression has type "List[str]", variable has type "int"' in res.stdout
    # A submodule's functions are typed too (their stubs sit in tessera/_core/).
    assert 'Argument 1 has incompatible type "int"; expected "str"' in res.stdout
    assert res.stdout.count("error:") == 4, res.stdout
