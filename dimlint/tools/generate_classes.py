"""Generate the table of which model types each transformers model class is registered for.

DL606 needs to know, without importing transformers, whether the class a config names in
``architectures`` belongs to its ``model_type``: a ``qwen3_5_moe_text`` config naming
``Qwen3_5MoeForConditionalGeneration`` (the vision-language class of ``qwen3_5_moe``) cannot be
built. transformers registers every class under the model types it serves in the
``MODEL_*_MAPPING_NAMES`` tables of ``models/auto/modeling_auto.py``; this module inverts them
and writes ``dimlint/data/classes.json`` (one class per line, read lazily by
:mod:`dimlint.config.model_classes`).

Usage: ``python -m dimlint.tools.generate_classes [--output PATH] [--check]``
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "data" / "classes.json"


def collect() -> tuple[str, dict[str, list[str]]]:
    """(transformers version, {class name: sorted model types}) from the installed release."""
    import transformers
    import transformers.models.auto.modeling_auto as auto

    classes: dict[str, set[str]] = {}
    for name in dir(auto):
        table = getattr(auto, name)
        if not name.endswith("_MAPPING_NAMES") or not isinstance(table, dict):
            continue
        for model_type, value in table.items():
            names = value if isinstance(value, list | tuple) else [value]
            for cls in names:
                if isinstance(cls, str) and not cls.endswith("Config"):
                    classes.setdefault(cls, set()).add(str(model_type))
    return transformers.__version__, {cls: sorted(types) for cls, types in sorted(classes.items())}


def render(version: str, classes: dict[str, list[str]]) -> str:
    """One class per line, so a lookup can parse a single row."""
    rows = [f"    {json.dumps(cls)}: {json.dumps(types)}" for cls, types in classes.items()]
    return (
        "{\n"
        f'  "transformers_version": {json.dumps(version)},\n'
        '  "classes": {\n' + ",\n".join(rows) + "\n  }\n}\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = render(*collect())
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            sys.stderr.write(f"{args.output} is stale: regenerate it\n")
            return 1
        return 0
    args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
