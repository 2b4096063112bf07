"""What a generated data table was generated from, recorded beside it and checked by a fast test.

``data/shapes.json`` is learned from transformers by :mod:`dimlint.tools.generate_shapes` in about
an hour; no test can regenerate it. What a test can do at no cost is notice, on the commit that
makes the table stale, that its inputs moved: the generator's code, the transformers version it
learned from, or the table's own bytes (a hand edit). :func:`record` writes
``shapes.provenance.json`` beside the table with a hash of each; :func:`stale` says which no longer
matches.

The generator's hash is over its code, not its text: the syntax tree of each source file without
docstrings, so a comment or a reformatting does not call for an hour of regeneration, and any
change to what the code does does.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
#: The modules whose code decides what ``shapes.json`` holds, relative to the package.
SHAPES_GENERATOR = (
    "tools/generate_shapes.py",
    "tools/shape_fit.py",
    "tools/undeclared_reads.py",
    "tools/compared_strings.py",
    "tools/overwritten_fields.py",
    "tools/kind_rebase.py",
    "tools/layer_kind_tags.py",
    "tools/numbered_modules.py",
    "tools/rederived.py",
    "tools/legacy_keys.py",
    "tools/null_regimes.py",
    "memory/parameters/nested_configs.py",
    "tools/class_flags.py",
    "tools/regime_points.py",
    "tools/unset_numbers.py",
    "tools/list_items.py",
    "tools/stand_ins.py",
    "tools/relation_regimes.py",
    "tools/inert_lists.py",
    "tools/plan_kinds.py",
    "tools/shaping_floats.py",
    "tools/field_budget.py",
    "memory/parameters/list_items.py",
    "memory/parameters/counted_lists.py",
    "tools/companion_flags.py",
    "tools/item_equalities.py",
    "tools/zero_counts.py",
    "tools/popped_flags.py",
)


def provenance_path(table: Path) -> Path:
    """``shapes.json`` → ``shapes.provenance.json``, in the same folder."""
    return table.with_name(f"{table.stem}.provenance.json")


def code_hash(sources: Sequence[str]) -> str:
    """sha256 over the docstring-free syntax trees of ``sources`` (paths under the package)."""
    digest = hashlib.sha256()
    for name in sources:
        tree = ast.parse((PACKAGE / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if (
                isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                and isinstance(body, list)
                and body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                body[0] = ast.Pass()
        digest.update(name.encode() + b"\0" + ast.dump(tree).encode() + b"\0")
    return digest.hexdigest()


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def expected(table: Path, transformers_version: str, sources: Sequence[str]) -> dict[str, object]:
    """The record ``table`` should have, generated now by ``sources`` from that version."""
    return {
        "table": table.name,
        "table_sha256": file_hash(table),
        "generator": list(sources),
        "generator_sha256": code_hash(sources),
        "transformers_version": transformers_version,
    }


def record(table: Path, transformers_version: str, sources: Sequence[str]) -> Path:
    """Write the provenance of ``table`` (just generated) beside it."""
    path = provenance_path(table)
    data = expected(table, transformers_version, sources)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def stale(table: Path, transformers_version: str | None = None) -> list[str]:
    """Why ``table`` no longer matches its recorded provenance (empty: it matches). Without
    ``transformers_version`` (transformers not installed) the version is not compared."""
    path = provenance_path(table)
    if not path.exists():
        return [f"{path.name} is missing: regenerate {table.name}"]
    recorded = json.loads(path.read_text(encoding="utf-8"))
    sources = recorded.get("generator", [])
    reasons = []
    if recorded.get("table_sha256") != file_hash(table):
        reasons.append(f"{table.name} was changed without its generator (its hash differs)")
    if recorded.get("generator_sha256") != code_hash(sources):
        reasons.append(f"the code of {', '.join(sources)} changed since {table.name} was generated")
    if (
        transformers_version is not None
        and recorded.get("transformers_version") != transformers_version
    ):
        reasons.append(
            f"{table.name} was learned from transformers {recorded.get('transformers_version')},"
            f" {transformers_version} is installed"
        )
    return reasons
