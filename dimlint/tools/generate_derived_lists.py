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
holds (sub-configs included, by dotted path) that its class does not declare with that value,
and, under :data:`PERIOD_KEY`, the rule by which the class derives its plan of layer kinds at any
depth (:func:`layer_period`), which a config stating no ``layer_types`` gets.

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

from dimlint.config import rowtable

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


#: The key of a row's repeating plan (:func:`layer_period`); no config states a key so spelled.
PERIOD_KEY = "rule:layer_types"


def layer_period(model_type: str, plan: object) -> dict[str, Any] | None:
    """The rule by which the class derives ``layer_types`` when a config states none, or None:
    ``{"period": [...]}``, one repeating period (OLMo-3: three sliding layers, then a full one),
    with ``"first"`` or ``"last"`` where the class sets the first or last layer apart (MiMo-V2:
    the first layer full too; Gemma-4: the last). The default's plan must repeat within half its
    length outside those, and the class must derive the same at other depths, which builds of
    the config at a few depths check."""
    if not isinstance(plan, list) or len({str(kind) for kind in plan}) < 2:
        return None
    kinds = [str(kind) for kind in plan]
    for first, last in ((False, False), (True, False), (False, True), (True, True)):
        rule = _periodic(kinds, first, last)
        if rule is not None and _derives(model_type, rule):
            return rule
    return None


def _periodic(kinds: list[str], first: bool, last: bool) -> dict[str, Any] | None:
    """The shortest period (at most half the plan) the plan follows outside its first or last
    layer, with those layers' own kinds; None when there is none."""
    length = len(kinds)
    body = range(1 if first else 0, length - 1 if last else length)
    for period in range(1, length // 2 + 1):
        pattern: dict[int, str] = {}
        if all(pattern.setdefault(index % period, kinds[index]) == kinds[index] for index in body):
            if len(pattern) < period:
                continue
            rule: dict[str, Any] = {"period": [pattern[index] for index in range(period)]}
            if first:
                rule["first"] = kinds[0]
            if last:
                rule["last"] = kinds[-1]
            return rule
    return None


def plan_of(rule: dict[str, Any], depth: int) -> list[str]:
    """The plan ``rule`` (:func:`layer_period`) gives ``depth`` layers."""
    period = rule["period"]
    kinds = [str(period[index % len(period)]) for index in range(depth)]
    if "first" in rule and kinds:
        kinds[0] = str(rule["first"])
    if "last" in rule and kinds:
        kinds[-1] = str(rule["last"])
    return kinds


def _derives(model_type: str, rule: dict[str, Any]) -> bool:
    """Whether the class derives the plan ``rule`` gives at several depths."""
    from transformers import AutoConfig

    from dimlint.config import architectures

    record = architectures.lookup(model_type)
    if record is None:
        return False
    period = len(rule["period"])
    layers_key = record.attribute("num_hidden_layers")
    for depth in sorted({2, period - 1, period + 1, 2 * period + 1, 7, 10, 13} - {0, 1}):
        try:
            config = AutoConfig.for_model(model_type, **{layers_key: depth})
        except Exception:  # a depth the class refuses: not a rule for every depth
            return False
        derived = [str(kind) for kind in getattr(config, "layer_types", None) or []]
        if derived != plan_of(rule, depth):
            return False
    return True


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
    period = layer_period(model_type, found.get("layer_types"))
    if period is not None:
        found[PERIOD_KEY] = period
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
    return rowtable.render(table["transformers_version"], list(table["types"].items()))


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
