"""Every ```python block of README.md and docs/*.md runs on its own in a fresh interpreter."""
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

# A fence opens with ```python at the start of a line and closes at the next bare ```.
FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def python_blocks():
    """(id, code) for each block; the id names the file and the fence's line so a failure
    points at the text to fix."""
    blocks = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text()
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            blocks.append((f"{path.relative_to(ROOT)}:{line}", m.group(1)))
    return blocks


BLOCKS = python_blocks()


def test_blocks_are_found():
    # A changed fence style must not turn this file into a suite that checks nothing.
    assert BLOCKS


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
