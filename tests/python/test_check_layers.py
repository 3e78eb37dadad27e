# Tests scripts/check_layers.py on small fake source trees (no tessera build needed).
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "check_layers.py"


def write(root, rel, text):
    """Create root/rel with the given text, making parent folders."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def run(root):
    """Run the checker on root; return (exit status, violation lines)."""
    proc = subprocess.run([sys.executable, str(SCRIPT), "--root", str(root)],
                          capture_output=True, text=True)
    return proc.returncode, proc.stdout.splitlines()[:-1]


def test_upward_include_is_reported(tmp_path):
    write(tmp_path, "cpp/src/runtime/a.cc", '#include "tessera/ir/expr.h"\n')
    write(tmp_path, "cpp/src/ir/b.cc", '#include "tessera/runtime/ndarray.h"\n')
    code, lines = run(tmp_path)
    assert code == 1
    assert lines == ['cpp/src/runtime/a.cc:1: runtime includes ir ("tessera/ir/expr.h")']


def test_clean_tree_passes(tmp_path):
    write(tmp_path, "cpp/src/ir/b.cc", '#include "tessera/runtime/ndarray.h"\n')
    write(tmp_path, "cpp/src/ir/c.cc", '#include "local.h"\n')
    write(tmp_path, "cpp/src/ir/local.h", "")
    assert run(tmp_path) == (0, [])


def test_private_header_is_reported(tmp_path):
    write(tmp_path, "cpp/src/op/nn_defs.h", "")
    write(tmp_path, "cpp/src/backend/x.cc", '#include "../op/nn_defs.h"\n')
    code, lines = run(tmp_path)
    assert code == 1
    assert lines == ['cpp/src/backend/x.cc:1: backend includes op private header ("../op/nn_defs.h")']
