"""tawla.native is the one door to the compiled core (pyzmq's backend module as the model).

* one list of calls (``native.__all__``), and no layer above reaching a compiled module;
* the compiled interface fixed at build time: each module's names (``backend.COMPILED_API``)
  are those its stub declares, and a build that lacks one is refused at import;
* the C units of ``csrc`` call one another without a cycle.
"""

from __future__ import annotations

import ast
import re
import types
from pathlib import Path

import pytest

import tawla
from tawla import native
from tawla.errors import ConfigError
from tawla.native import backend

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "tawla"
CSRC = ROOT / "csrc"


def test_the_one_list_names_what_the_package_provides():
    assert len(native.__all__) == len(set(native.__all__))
    for name in native.__all__:
        assert callable(getattr(native, name)) or name in ("EVAL_ENDS", "ROLLOUT_VALUES"), name
    for gone in ("fast_eval", "fast_net", "fast_bearoff", "params"):
        assert gone not in native.__all__ and not hasattr(native, gone)


def test_no_layer_above_reaches_a_compiled_module():
    """Outside tawla/native, compiled code is reached through native's calls only."""
    pattern = re.compile(r"\bfast_(eval|net|bearoff)\b|native\.params\b|native\._[a-z]|native\.backend\b"
                         r"|from \.+native(\.\w+)? import _|tawla\.native\._")
    found = [f"{p.relative_to(SRC)}:{i}: {line.strip()}"
             for p in SRC.rglob("*.py") if "native" not in p.relative_to(SRC).parts
             for i, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert found == []


@pytest.mark.parametrize("module", sorted(backend.COMPILED_API))
def test_each_compiled_module_stub_declares_its_calls(module):
    """The names native.backend requires of a compiled module are those of its type stub."""
    tree = ast.parse((SRC / "native" / f"{module}.pyi").read_text())
    declared = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            declared.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            declared.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            declared.update(a.asname for a in node.names if a.asname)
    assert set(backend.COMPILED_API[module]) <= declared


def test_a_build_without_a_required_call_is_refused(monkeypatch):
    real = backend.importlib.import_module

    def stale(name):
        mod = real(name) if native.available() else types.SimpleNamespace()
        if name.endswith("._turns"):
            return types.SimpleNamespace(**{k: getattr(mod, k) for k in backend.COMPILED_API["_turns"]
                                            if k != "turn_step" and hasattr(mod, k)})
        return mod

    monkeypatch.setattr(backend.importlib, "import_module", stale)
    monkeypatch.delenv("TAWLA_NO_NATIVE", raising=False)
    with pytest.raises(ConfigError, match=r"_turns\.turn_step"):
        backend._load()
    monkeypatch.setenv("TAWLA_NO_NATIVE", "1")
    assert backend._load() == {}


def test_parts_and_engines_are_checked():
    with pytest.raises(ConfigError):
        native.available("gpu")
    with pytest.raises(ConfigError):
        native.resolve_engine("turbo")
    with pytest.raises(ConfigError):
        backend.set_default_engine("turbo")
    assert native.default_engine() in ("fast", "reference")


def test_compiled_only_calls_say_what_they_need(monkeypatch):
    """Without the compiled modules, a compiled-only call raises ConfigError saying so (the
    layers above ask native.available first and use their numpy twins)."""
    monkeypatch.setattr(backend, "_MODULES", {})
    assert not native.available("eval") and not native.available("net")
    row = tawla.get_ruleset("mahbusa").initial_position().to_array()[None]
    with pytest.raises(ConfigError, match="compiled engine"):
        native.nohit_contact(row, tawla.get_ruleset("mahbusa"))
    with pytest.raises(ConfigError, match="compiled engine"):
        native.net_sizes()


# --- the C units --------------------------------------------------------------------------------
_DEF = re.compile(r"^(?!static\b)[A-Za-z_][\w \*]*?\b(tw_\w+)\s*\([^;{]*\)\s*\{", re.M)


def _unit_calls() -> dict[str, set[str]]:
    """Which unit (csrc/**/*.c) calls a function defined in which other unit."""
    units = {p.relative_to(CSRC).as_posix(): p.read_text() for p in CSRC.rglob("*.c")}
    owner = {name: unit for unit, text in units.items() for name in _DEF.findall(text)}
    calls: dict[str, set[str]] = {u: set() for u in units}
    for unit, text in units.items():
        for name in set(re.findall(r"\b(tw_\w+)\s*\(", text)):
            if owner.get(name, unit) != unit:
                calls[unit].add(owner[name])
    return calls


def test_the_c_units_call_each_other_without_a_cycle():
    calls = _unit_calls()
    assert len(calls) >= 15 and "eval/tw_eval_ends.c" in calls["net/tw_net.c"]
    done: set[str] = set()

    def visit(unit, path):
        assert unit not in path, "C units that call each other: " + " -> ".join(path + [unit])
        if unit in done:
            return
        for other in sorted(calls[unit]):
            visit(other, path + [unit])
        done.add(unit)

    for unit in sorted(calls):
        visit(unit, [])


def test_the_evaluators_take_the_one_parameter_block():
    """Every evaluator entry point of csrc/eval takes the ruleset as ``const tw_params *``."""
    header = (CSRC / "eval" / "tw_eval.h").read_text()
    for name in ("tw_eval_ends", "tw_eval_bg_row", "tw_nohit_row"):
        assert re.search(rf"\b{name}\(const tw_params \*P\b", header), name
    assert not re.search(r"typedef struct \{[^}]*\} tw_\w+_rules;", header)
