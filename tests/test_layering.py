"""The import contract of docs/architecture.md: packages import only downward, and no cycle.

The imports are read from the code (every ``import`` and ``from … import``, at module level or
inside a function: a lazy import is still a dependency), so the test fails the moment someone
adds an upward import, a cycle, or a module outside the layered packages.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "dimlint"

#: Bottom to top. A module may import from its own layer and the layers before it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("dimlint.diagnostics", "dimlint.errors", "dimlint.records"),
    ("dimlint.config",),
    ("dimlint.sources",),
    ("dimlint.memory",),
    ("dimlint.deploy",),
    ("dimlint.checks",),
    ("dimlint.lint",),
    ("dimlint.fix",),
    ("dimlint.report",),
    ("dimlint.api",),
    ("dimlint.commands", "dimlint.server"),
    ("dimlint.cli", "dimlint.__main__"),
    ("dimlint.tools",),
)

#: The package's own ``__init__`` is the public facade (``__version__`` and the lazy API
#: re-exports): every layer may read ``__version__`` from it, and it may name the API.
FACADE = "dimlint"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int | None:
    for rank, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return None


def imports_of(module: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[str, int]]:
    """The dimlint modules ``module`` imports, with the line of each import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("dimlint"):
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if not target.startswith("dimlint"):
                continue
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                yield (submodule if submodule in known else target), node.lineno


def graph() -> dict[str, set[str]]:
    known = all_modules()
    return {
        module: {target for target, _ in imports_of(module, path, known) if target != module}
        for module, path in known.items()
    }


def test_every_module_belongs_to_a_layer() -> None:
    strays = [m for m in all_modules() if m != FACADE and layer_of(m) is None]
    assert strays == [], f"modules outside the layers of docs/architecture.md: {strays}"


def upward_imports(module: str, path: Path, known: dict[str, Path]) -> list[str]:
    """The imports of ``module`` that reach a higher layer (or a module in none)."""
    rank = layer_of(module)
    assert rank is not None, module
    found = []
    for target, line in imports_of(module, path, known):
        target_rank = layer_of(target)
        if target != FACADE and (target_rank is None or target_rank > rank):
            found.append(f"{path.name}:{line}: {module} → {target}")
    return found


def test_imports_only_go_down() -> None:
    known = all_modules()
    upward = [
        problem
        for module, path in known.items()
        if module != FACADE
        for problem in upward_imports(module, path, known)
    ]
    assert upward == [], "upward imports:\n" + "\n".join(upward)


def test_readers_know_no_rules() -> None:
    """The sources and the model of a config never import a rule, a check or the registry."""
    known = all_modules()
    offenders = [
        f"{module} → {target}"
        for module, path in known.items()
        if module.startswith(("dimlint.sources", "dimlint.config"))
        for target, _ in imports_of(module, path, known)
        if target.startswith(("dimlint.checks", "dimlint.lint"))
    ]
    assert offenders == []


def test_no_import_cycle() -> None:
    edges = graph()
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(start: str) -> None:
        # Iterative DFS (white 0 / grey 1 / black 2), recording the path to report a cycle.
        stack: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(edges.get(start, ()))))]
        path = [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
                path.pop()
                continue
            if child not in edges or child == FACADE:
                continue
            if state.get(child, 0) == 1:
                cycles.append([*path[path.index(child) :], child])
            elif state.get(child, 0) == 0:
                state[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(edges.get(child, ())))))

    for module in sorted(edges):
        if state.get(module, 0) == 0:
            visit(module)
    assert cycles == [], "import cycles:\n" + "\n".join(" → ".join(c) for c in cycles)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from dimlint.lint.pipeline import lint_bytes\n", ["dimlint.lint.pipeline"]),
        ("from dimlint.memory import kvcache\n", ["dimlint.memory.kvcache"]),
        ("def f():\n    import dimlint.checks\n", ["dimlint.checks"]),
    ],
)
def test_the_reader_of_imports_sees_each_form(
    tmp_path: Path, source: str, expected: list[str]
) -> None:
    """A check that reads no import would pass on anything: make sure each form is seen."""
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    found = [t for t, _ in imports_of("dimlint.probe", path, all_modules())]
    assert found == expected


def test_a_planted_upward_import_is_caught(tmp_path: Path) -> None:
    """A rule that imports the pipeline, or a reader that imports a rule, is reported."""
    path = tmp_path / "probe.py"
    path.write_text("from dimlint.lint.pipeline import lint_bytes\n", encoding="utf-8")
    assert upward_imports("dimlint.checks.probe", path, all_modules()) == [
        "probe.py:1: dimlint.checks.probe → dimlint.lint.pipeline"
    ]
    assert upward_imports("dimlint.report.probe", path, all_modules()) == []
