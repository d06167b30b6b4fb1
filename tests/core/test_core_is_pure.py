"""`core/` imports only the standard library and itself: no boto3, no clock, no global random."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "core"
FORBIDDEN_STDLIB = {"random", "time", "datetime", "secrets", "os", "socket", "subprocess"}


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_core_imports_only_the_standard_library() -> None:
    sources = sorted(CORE.rglob("*.py"))
    assert len(sources) > 5
    offenders = {
        f"{path.relative_to(CORE.parent)}: {module}"
        for path in sources
        for module in _imported_modules(path)
        if module != "core" and module not in sys.stdlib_module_names
    }
    assert not offenders, f"core/ must import only the standard library: {sorted(offenders)}"


def test_core_has_no_clock_randomness_or_io() -> None:
    offenders = {
        f"{path.relative_to(CORE.parent)}: {module}"
        for path in sorted(CORE.rglob("*.py"))
        for module in _imported_modules(path) & FORBIDDEN_STDLIB
    }
    assert not offenders, f"dice and time come in as arguments: {sorted(offenders)}"


def test_the_checker_would_catch_a_third_party_import(tmp_path: Path) -> None:
    module = tmp_path / "leaky.py"
    module.write_text("import boto3\nfrom pydantic import BaseModel\nfrom core import x\n")
    imported = _imported_modules(module)
    assert {"boto3", "pydantic"} <= imported
    assert not {"boto3", "pydantic"} & sys.stdlib_module_names
