"""Every dotted ``tawla.`` name in the sources' comments and docstrings (Python, C and Cython)
names something that exists: a module, or an attribute, method or field reached from one.
A name that outlived a rename fails here, with the file and line that holds it."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NAME = re.compile(r"(?<![\w/.-])tawla(?:\.[A-Za-z_]\w*)+")
SOURCES = sorted(p for p in (ROOT / "src" / "tawla").rglob("*.py")) + sorted(
    p for ext in ("c", "h", "pyx", "pxd") for p in (ROOT / "csrc").rglob(f"*.{ext}"))


def _resolves(name: str) -> bool:
    """Whether ``name`` is a module or reached from the longest importable module prefix by
    attributes (a dataclass field, an annotated or slotted attribute counts); a Cython
    declaration file (``.pxd``) counts as a module."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        module = ".".join(parts[:i])
        try:
            obj = importlib.import_module(module)
        except ImportError:
            if (ROOT / "src" / Path(*parts[:i])).with_suffix(".pxd").exists():
                return i == len(parts)
            continue
        for attr in parts[i:]:
            if hasattr(obj, attr):
                obj = getattr(obj, attr)
                continue
            declared = (getattr(obj, "__dataclass_fields__", None) or {}, getattr(obj, "__annotations__", None) or {},
                        getattr(obj, "__slots__", None) or ())
            return any(attr in d for d in declared) and attr == parts[-1]
        return True
    return False


def _names() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in SOURCES:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in NAME.finditer(line):
                found.setdefault(m.group(0), []).append(f"{path.relative_to(ROOT)}:{n}")
    return found


def test_the_sources_name_things_that_exist():
    names = _names()
    assert len(names) > 300  # the scan reads what it should
    stale = {name: where for name, where in names.items() if not _resolves(name)}
    assert not stale, "names that resolve to nothing: " + "; ".join(f"{k} ({', '.join(v[:3])})" for k, v in stale.items())


@pytest.mark.parametrize("name, ok", [("tawla.met.cube.ScoreState.may_double", True), ("tawla.layout", False),
                                      ("tawla.native._race", True), ("tawla.bots.cube_efficiency", False),
                                      ("tawla.analysis.report_data.Decision.mwc_loss", True)])
def test_the_resolver(name, ok):
    assert _resolves(name) is ok
