"""Every ```python block of README.md and docs/*.md runs on its own in a fresh interpreter,
and every ```cpp block of README.md is a program that compiles against the build and runs.
(The ```cpp blocks of docs/extending.md are excerpts of files to add to, not programs.)"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

def fence(language):
    """A fence opening with ```<language> at the start of a line, closing at the next ```."""
    return re.compile(rf"^```{language}[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def blocks(language, paths):
    """(id, code) for each block; the id names the file and the fence's line so a failure
    points at the text to fix."""
    found = []
    for path in paths:
        text = path.read_text()
        for m in fence(language).finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append((f"{path.relative_to(ROOT)}:{line}", m.group(1)))
    return found


BLOCKS = blocks("python", [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
CPP_BLOCKS = blocks("cpp", [ROOT / "README.md"])
BUILD = Path(os.environ.get("TESSERA_BUILD_DIR", ROOT / "build"))


def test_blocks_are_found():
    # A changed fence style must not turn this file into a suite that checks nothing.
    assert BLOCKS and CPP_BLOCKS


@pytest.mark.parametrize("code", [code for _, code in CPP_BLOCKS],
                         ids=[block_id for block_id, _ in CPP_BLOCKS])
def test_cpp_block_compiles_and_runs(code, tmp_path):
    source = tmp_path / "block.cc"
    source.write_text(code)
    compile_cmd = ["c++", "-std=c++20", "-O0", f"-I{ROOT / 'cpp' / 'include'}", str(source),
                   "-o", str(tmp_path / "block"), f"-L{BUILD}", "-ltessera", "-ltessera_runtime",
                   f"-Wl,-rpath,{BUILD}"]
    built = subprocess.run(compile_cmd, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    res = subprocess.run([str(tmp_path / "block")], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600)
    status = res.returncode
    assert status == 0, f"exit code {status}\n{res.stderr}"


@pytest.mark.parametrize("code", [code for _, code in BLOCKS],
                         ids=[block_id for block_id, _ in BLOCKS])
def test_block_runs_alone(code, tmp_path):
    # A fresh process in an empty directory: a block may rely on nothing an earlier block
    # defined or wrote, as a reader copying it would not have it either.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    # Compared on its own so that pytest's report shows the block's stderr, not the repr
    # of the whole CompletedProcess.
    status = res.returncode
    assert status == 0, f"exit code {status}\n{res.stderr}"
