"""`pip install .` into a fresh virtual environment gives a package that imports and runs a
model from outside the repository (every subpackage installed, the native libraries found
next to the extensions)."""
import os
import pathlib
import subprocess
import sys
import textwrap

from conftest import ROOT

SCRIPT = textwrap.dedent("""
    import pathlib
    import numpy as np
    import tessera
    import tessera.frontend, tessera.op, tessera.transform, tessera.collage, tessera.runtime
    from tessera.op import nn

    assert "site-packages" in tessera.__file__, tessera.__file__
    package = pathlib.Path(tessera.__file__).parent
    for typed in ("py.typed", "_core/__init__.pyi", "_core/collage.pyi", "_runtime.pyi", "op/nn.py",
                  "_passes.py"):
        assert (package / typed).exists(), typed
    x = tessera.var("x", shape=(2, 3))
    mod = tessera.IRModule.from_expr(tessera.Function([x], nn.relu(tessera.op.add(x, x))))
    exe = tessera.build(mod, "native -num_threads=1")
    a = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    np.testing.assert_allclose(exe(x=a), np.maximum(2 * a, 0))
    exe.save("m.tsx")
    np.testing.assert_allclose(tessera.runtime.load("m.tsx")(x=a), np.maximum(2 * a, 0))
    # Collage times candidates in the worker process shipped in the package.
    assert (package / "tessera-measure-worker").exists()
    with tessera.transform.PassContext(config={"collage.enable": True, "collage.cost_db": "",
                                               "collage.guard": False}):
        exe = tessera.build(mod, "native -num_threads=1")
    assert exe.collage_report().data["measure"]["workers_started"] == 1
    np.testing.assert_allclose(exe(x=a), np.maximum(2 * a, 0))
    print("installed package OK", tessera.__version__)
""")


def test_pip_install_into_a_fresh_venv_imports_and_runs(tmp_path):
    venv = tmp_path / "venv"
    # Debian's Python: its NumPy and setuptools come in through --system-site-packages.
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, timeout=300)
    python = venv / "bin" / "python"
    env = dict(os.environ)
    # ccache serves the objects the test build already compiled (same flags, other folder).
    env.update(CCACHE_BASEDIR=str(ROOT), CCACHE_NOHASHDIR="1",
               TESSERA_PIP_BUILD_DIR=str(pathlib.Path(os.environ.get(
                   "TESSERA_BUILD_DIR", ROOT / "build")).resolve()) + "-pip")
    env.pop("PYTHONPATH", None)
    res = subprocess.run([str(python), "-m", "pip", "install", "--no-build-isolation",
                          "--no-deps", "--no-index", "--quiet", str(ROOT)],
                         env=env, capture_output=True, text=True, timeout=1800)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    out = subprocess.run([str(python), "-c", SCRIPT], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("installed package OK")
