"""The service is an extra: ``import tawla`` and the ``tawla`` command load none of its
dependencies, and ``tawla serve`` names the extra when they are missing."""

from __future__ import annotations

import subprocess
import sys

SERVE_DEPENDENCIES = ("fastapi", "uvicorn", "sqlalchemy", "starlette", "pydantic")


def test_import_tawla_and_its_command_load_no_service_dependency():
    code = ("import sys, tawla, tawla.cli; tawla.cli.build_parser(); "
            f"print(sorted(m for m in {SERVE_DEPENDENCIES!r} if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "[]"


def test_serve_without_the_extra_names_it():
    code = ("import sys; sys.modules['fastapi'] = None; from tawla.cli import main; "
            "sys.exit(main(['serve', '--port', '0']))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "ConfigError" in r.stderr and "serve" in r.stderr
