"""Generate the lists and dicts each config class derives, at its default config.

A shape template is learned from the model transformers builds from a type's *default* config
(:mod:`dimlint.tools.generate_shapes`), and a stated list is inside its domain only when it is
one the template learned (:mod:`dimlint.memory.parameters.template_plans`). For a list declared
with a value (ConvNeXt's ``depths``) ``architectures.json`` holds it; but many lists and dicts
are declared ``None`` and derived in ``__post_init__`` (SmolLM3's ``no_rope_layers`` from
``no_rope_layer_interval``, Kimi-Linear's ``mlp_layer_types`` from ``first_k_dense_replace``,
Mllama's ``cross_attention_layers``, Aria's ``projector_patch_to_query_dict``), and without their
default value a stated one could only be refused, even where it is exactly what the template
learned. This tool records, per model type, every non-empty list or dict the default config
holds (sub-configs included, by dotted path) that its class does not declare with that value.

transformers is imported only inside functions. Usage:
``python -m dimlint.tools.generate_derived_lists [--output PATH] [--check]``
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "data" / "derived_lists.json"

#: Lists and dicts that shape no tensor, or whose meaning every config shares.
_SKIPPED = frozenset(
    {"id2label", "label2id", "architectures", "auto_map", "task_specific_params",
     "quantization_config", "rope_parameters", "rope_scaling", "bad_words_ids",
     "suppress_tokens", "begin_suppress_tokens", "forced_decoder_ids", "eos_token_id",
     "bos_token_id", "pad_token_id", "decoder_start_token_id", "transformers_version"}
)  # fmt: skip


def _walk(obj: dict[str, Any], model_type: str, prefix: str, found: dict[str, Any]) -> None:
    from dimlint.config import architectures

    record = architectures.lookup(model_type)
    base = architectures.base_fields()
    for key, value in obj.items():
        if key in _SKIPPED or (key in base and key != "layer_types"):
            continue
        if isinstance(value, dict) and record is not None and key in record.sub_configs:
            stated = value.get("model_type")
            sub_type = stated if isinstance(stated, str) and stated else record.sub_configs[key]
            if sub_type:
                _walk(value, sub_type, f"{prefix}{key}.", found)
            continue
        if not isinstance(value, list | dict) or not value:
            continue
        declared = record.defaults.get(key) if record is not None else None
        if declared != value:
            found[f"{prefix}{key}"] = value


def derived(model_type: str) -> dict[str, Any] | None:
    """The lists and dicts of ``model_type``'s default config its class does not declare at
    that value, by dotted path; None when the default config cannot be built."""
    from transformers import AutoConfig

    try:
        config = AutoConfig.for_model(model_type)
        document = json.loads(config.to_json_string(use_diff=False))
    except Exception:  # the shape table records no template for such a type either
        return None
    found: dict[str, Any] = {}
    _walk(document, model_type, "", found)
    return found


def build() -> dict[str, Any]:
    import transformers
    from transformers.utils import logging

    from dimlint.memory.parameters import templates

    logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    rows: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model_type in sorted(templates.model_type_names()):
            found = derived(model_type)
            if found:
                rows[model_type] = found
    return {"transformers_version": transformers.__version__, "types": rows}


def render(table: dict[str, Any]) -> str:
    """One model type per line, as ``architectures.json``: a lookup parses one line."""
    lines = ["{", f'  "transformers_version": {json.dumps(table["transformers_version"])},']
    lines.append('  "types": {')
    items = list(table["types"].items())
    for index, (name, row) in enumerate(items):
        comma = "," if index < len(items) - 1 else ""
        lines.append(f"    {json.dumps(name)}: {json.dumps(row, sort_keys=True)}{comma}")
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="table to write")
    parser.add_argument("--check", action="store_true", help="fail if the table is stale")
    args = parser.parse_args(argv)
    text = render(build())
    path: Path = args.output
    if args.check:
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != text:
            print(f"{path} is stale: rerun python -m dimlint.tools.generate_derived_lists")
            return 1
        return 0
    path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
