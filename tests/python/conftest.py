"""Shared pytest fixtures: where the build put the tessera CLI."""
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def tessera_cli():
    build = pathlib.Path(os.environ.get("TESSERA_BUILD_DIR", ROOT / "build"))
    cli = build / "tessera"
    if not cli.exists():
        pytest.fail(f"tessera CLI not found at {cli}; build first (scripts/setup.sh)")
    return str(cli)
