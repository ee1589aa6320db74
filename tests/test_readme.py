"""The README's Python examples run as written (each block in a fresh interpreter)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("k", range(len(BLOCKS)))
def test_readme_example_runs(k, tmp_path):
    env = dict(os.environ, TAWLA_CACHE=str(tmp_path / "cache"))  # bear-off tables built here
    r = subprocess.run([sys.executable, "-c", BLOCKS[k]], capture_output=True, text=True,
                       cwd=tmp_path, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
