"""Every exception the package raises on purpose is one of ``tawla.errors``' classes.

The package's sources (``src/tawla`` and the Cython modules in ``csrc``) are scanned for
``raise`` statements that construct a built-in exception class or the bare base class
``TawlaError``: bad input must raise a class that says what went wrong. The exceptions of a
Python protocol are allowed where the protocol asks for them (``AttributeError`` from an
immutable object's ``__setattr__``, ``IndexError`` from ``__getitem__``,
``NotImplementedError`` in an abstract method, ``MemoryError`` from a failed allocation,
``SystemExit`` from a script's entry point, argparse's ``ArgumentTypeError``).
"""

import ast
import re
from pathlib import Path

import pytest

from tawla import errors

ROOT = Path(__file__).resolve().parents[1]
PYTHON_SOURCES = sorted((ROOT / "src" / "tawla").rglob("*.py"))
CYTHON_SOURCES = sorted((ROOT / "csrc").rglob("*.pyx"))
PROTOCOL = {"AttributeError", "IndexError", "NotImplementedError", "MemoryError", "SystemExit",
            "StopIteration", "KeyboardInterrupt"}
OURS = set(errors.__all__) - {"TawlaError"}
PYX_RAISE = re.compile(r"^\s*raise\s+([A-Za-z_][A-Za-z_0-9.]*)\s*(\(|$)")


def _raised_name(node: ast.Raise):
    exc = node.exc
    if isinstance(exc, ast.Call):
        exc = exc.func
    if isinstance(exc, ast.Name):
        return exc.id
    if isinstance(exc, ast.Attribute):
        return exc.attr
    return None


def _bad_python_raises(path: Path) -> list:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            name = _raised_name(node)
            if name is None or name in OURS or name in PROTOCOL or name == "ArgumentTypeError":
                continue
            if name[0].isupper():  # a class; lower-case names are exception objects built above
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: raise {name}")
    return bad


def test_the_scan_finds_raises():
    assert len(PYTHON_SOURCES) > 40 and len(CYTHON_SOURCES) >= 3
    sample = ast.parse("def f():\n    raise ValueError('x')\n")
    assert _raised_name(next(n for n in ast.walk(sample) if isinstance(n, ast.Raise))) == "ValueError"


@pytest.mark.parametrize("path", PYTHON_SOURCES, ids=lambda p: str(p.relative_to(ROOT / "src")))
def test_python_sources_raise_tawla_errors(path):
    assert _bad_python_raises(path) == []


@pytest.mark.parametrize("path", CYTHON_SOURCES, ids=lambda p: p.name)
def test_cython_sources_raise_tawla_errors(path):
    bad = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines, 1):
        m = PYX_RAISE.match(line)
        if not m:
            continue
        name = m.group(1).rsplit(".", 1)[-1]
        if name in OURS or name in PROTOCOL or not name[0].isupper():
            continue
        # a bare class raised inside a try whose handler turns it into a tawla error
        following = "\n".join(lines[i:i + 3])
        if m.group(2) == "" and re.search(rf"except \(?[^)]*\b{name}\b", following):
            continue
        bad.append(f"{path.name}:{i}: {line.strip()}")
    assert bad == []
