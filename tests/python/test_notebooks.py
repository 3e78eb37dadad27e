"""Every examples/notebooks/*.ipynb is saved without outputs and runs top to bottom without error."""
import os
import sys

import nbclient
import nbformat
import pytest

from conftest import ROOT

NOTEBOOKS = sorted((ROOT / "examples" / "notebooks").glob("*.ipynb"))


def test_notebooks_are_found():
    # A moved folder must not turn this file into a suite that checks nothing.
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path, monkeypatch):
    nb = nbformat.read(str(path), as_version=4)
    stored = [c.get("id") for c in nb.cells if c.cell_type == "code" and (c.outputs or c.execution_count)]
    assert not stored, f"{path.name}: clear the outputs of cells {stored} before saving"
    # The kernel is another process: it finds tessera through PYTHONPATH (monkeypatch restores
    # the environment afterwards); the notebook runs in an empty directory.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in sys.path if p))
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")   # quiets ipykernel's debugger note
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()   # raises CellExecutionError, naming the cell, when one fails
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors, f"{path.name}: {errors[0].ename}: {errors[0].evalue}"
