"""The house keeps its floors (docs/architecture.md, "Where things live"): every import,
deferred and type-only ones included, runs from a package to one below it, never up and
never around in a circle; between the top-level packages and between the parts of
`infra`."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# lowest first: each may import only those before it
PACKAGES = ("core", "infra", "functions", "local", "cli")
INFRA_PARTS = ("root", "store", "outbox", "jobs", "services", "bootstrap")
INFRA_SUBPACKAGES = ("store", "outbox", "jobs", "services")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> Iterator[str]:
    """Every module `path` imports, wherever in the file (relative imports resolved)."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            yield module
            yield from (f"{module}.{alias.name}" for alias in node.names)


def sources(*packages: str) -> Iterator[tuple[str, Path]]:
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield module_name(path), path


def infra_part(module: str) -> str | None:
    """Which part of `infra` a module belongs to (None outside it)."""
    parts = module.split(".")
    if parts[0] != "infra":
        return None
    if len(parts) > 1 and parts[1] in (*INFRA_SUBPACKAGES, "bootstrap"):
        return parts[1]
    return "root"


def package_arrows() -> dict[tuple[str, str], str]:
    """(importing package, imported package) -> one import that makes the arrow."""
    found: dict[tuple[str, str], str] = {}
    for module, path in sources(*PACKAGES):
        for imported in imports(path):
            top, source = imported.split(".")[0], module.split(".")[0]
            if top in PACKAGES and top != source:
                found.setdefault((source, top), f"{module} imports {imported}")
    return found


def infra_arrows() -> dict[tuple[str, str], str]:
    """(importing part, imported part) of `infra` -> one import that makes the arrow."""
    found: dict[tuple[str, str], str] = {}
    for module, path in sources("infra"):
        for imported in imports(path):
            source, target = infra_part(module), infra_part(imported)
            if source and target and imported != "infra" and source != target:
                found.setdefault((source, target), f"{module} imports {imported}")
    return found


def circles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """Every cycle's path through the graph `edges` (depth first, one per start)."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    found: list[list[str]] = []

    def walk(node: str, path: list[str]) -> None:
        for after in sorted(graph.get(node, ())):
            if after == path[0]:
                found.append([*path, after])
            elif after not in path:
                walk(after, [*path, after])

    for start in sorted(graph):
        walk(start, [start])
    return found


def upward(found: dict[tuple[str, str], str], floors: tuple[str, ...]) -> list[str]:
    return [
        f"{a} → {b}: {why}"
        for (a, b), why in sorted(found.items())
        if floors.index(b) > floors.index(a)
    ]


def test_no_circle_and_no_arrow_up_between_the_top_level_packages() -> None:
    found = package_arrows()
    assert not circles(set(found)), circles(set(found))
    assert not upward(found, PACKAGES)


def test_no_circle_and_no_arrow_up_between_the_parts_of_infra() -> None:
    assert sorted(p.name for p in (ROOT / "infra").iterdir() if (p / "__init__.py").exists()) == (
        sorted(INFRA_SUBPACKAGES)
    ), "a new part of infra needs its floor here and in docs/architecture.md"
    found = infra_arrows()
    assert not circles(set(found)), circles(set(found))
    assert not upward(found, INFRA_PARTS)


def test_the_walk_sees_an_arrow_up_and_a_circle() -> None:
    """The test above would notice: a made-up import from store into services."""
    found = {**infra_arrows(), ("store", "services"): "infra.store.x imports infra.services.y"}
    assert upward(found, INFRA_PARTS) == [
        "store → services: infra.store.x imports infra.services.y"
    ]
    assert circles({("a", "b"), ("b", "a")}) == [["a", "b", "a"], ["b", "a", "b"]]


def test_where_things_live_names_every_package_and_part() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Where things live", 1)[1].split("\n## ", 1)[0]
    for name in (*PACKAGES, *(f"infra.{part}" for part in INFRA_SUBPACKAGES)):
        assert f"`{name}`" in section, name
