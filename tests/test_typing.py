"""mypy passes on the modules that ``[tool.mypy]`` in pyproject.toml lists (the public API and
what it imports), with the compiled modules' stubs (``tawla/native/*.pyi``)."""

import subprocess
import sys
from pathlib import Path

from conftest import require_module

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_is_clean(tmp_path):
    require_module("mypy")
    r = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / "cache"),
                        "--config-file", str(ROOT / "pyproject.toml")],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert r.stdout.rstrip().splitlines()[-1].startswith("Success: no issues found"), r.stdout[-2000:]
