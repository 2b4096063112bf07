"""Generate the table of which model types each transformers model class is registered for.

DL606 needs to know, without importing transformers, whether the class a config names in
``architectures`` belongs to its ``model_type``: a ``qwen3_5_moe_text`` config naming
``Qwen3_5MoeForConditionalGeneration`` (the vision-language class of ``qwen3_5_moe``) cannot be
built. transformers registers every class under the model types it serves in the
``MODEL_*_MAPPING_NAMES`` tables of ``models/auto/modeling_auto.py``; this module inverts them
and writes ``dimlint/data/classes.json`` (one class per line, read lazily by
:mod:`dimlint.config.model_classes`). Beside it, per model type, the one class ``AutoModel``,
``AutoModelForCausalLM`` and ``AutoModelForSeq2SeqLM`` build from its config (``auto``): the
encoder-decoder composites build their towers through the first two (see
:mod:`dimlint.memory.parameters.composed`), BLIP-2's language model through the last two
(:mod:`dimlint.memory.parameters.text_towers`).

Usage: ``python -m dimlint.tools.generate_classes [--output PATH] [--check]``
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "data" / "classes.json"


#: The ``auto`` roles and the tables transformers' auto classes read them from.
AUTO_TABLES = {
    "base": "MODEL_MAPPING_NAMES",
    "causal_lm": "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES",
    "seq2seq_lm": "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES",
}


def collect() -> tuple[str, dict[str, list[str]], dict[str, dict[str, str]]]:
    """(transformers version, {class name: sorted model types}, {model type: {role: class}})
    from the installed release. A type mapped to several classes (Funnel's two base models,
    chosen by the config's ``architectures``) gets no entry for that role."""
    import transformers
    import transformers.models.auto.modeling_auto as auto_tables

    classes: dict[str, set[str]] = {}
    for name in dir(auto_tables):
        table = getattr(auto_tables, name)
        if not name.endswith("_MAPPING_NAMES") or not isinstance(table, dict):
            continue
        for model_type, value in table.items():
            names = value if isinstance(value, list | tuple) else [value]
            for cls in names:
                if isinstance(cls, str) and not cls.endswith("Config"):
                    classes.setdefault(cls, set()).add(str(model_type))
    auto: dict[str, dict[str, str]] = {}
    for role, table_name in AUTO_TABLES.items():
        for model_type, value in getattr(auto_tables, table_name).items():
            if isinstance(value, str):
                auto.setdefault(str(model_type), {})[role] = value
    return (
        transformers.__version__,
        {cls: sorted(types) for cls, types in sorted(classes.items())},
        {model_type: auto[model_type] for model_type in sorted(auto)},
    )


def render(version: str, classes: dict[str, list[str]], auto: dict[str, dict[str, str]]) -> str:
    """One class (then one model type) per line, so a lookup can parse a single row. The
    ``auto`` rows are indented deeper than the class rows, so a class lookup never lands on
    one."""
    rows = [f"    {json.dumps(cls)}: {json.dumps(types)}" for cls, types in classes.items()]
    auto_rows = [
        f"      {json.dumps(model_type)}: {json.dumps(roles, sort_keys=True)}"
        for model_type, roles in auto.items()
    ]
    return (
        "{\n"
        f'  "transformers_version": {json.dumps(version)},\n'
        '  "classes": {\n' + ",\n".join(rows) + "\n  },\n"
        '  "auto": {\n' + ",\n".join(auto_rows) + "\n  }\n}\n"
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
