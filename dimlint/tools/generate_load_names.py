"""Learn how ``from_pretrained`` renames checkpoint keys, per model type and class.

The result is ``data/load_names.json``.

For every class that has a shape template (``data/shapes.json``), this builds the default
model on the meta device and records what :mod:`dimlint.memory.checkpoint.load_names` needs to map a
checkpoint's names onto the template's:

* ``transforms``: transformers' ``get_model_conversion_mapping(model)`` — the renamings and
  converters loading applies, scoped to their sub-models, legacy renames included — as
  (kind, compiled regex, source patterns, target patterns, scope, base prefix, operations);
  ``opaque`` for the renaming classes with their own matching logic;
* ``buffers``: persistent buffers (saved with the weights, not parameters), folded;
* ``aliases``/``tied``: tied parameters (``lm_head.weight`` ↔ ``embed_tokens.weight``, T5's
  encoder embedding ↔ ``shared``), folded and by exact name: a checkpoint may hold them or not;
* ``ignore``: the class's ``_keys_to_ignore_on_load_unexpected``/``_missing`` regexes;
* ``roundtrip``: whether the names and shapes ``save_pretrained`` writes for this build
  (transformers' ``revert_weight_conversion`` on the meta state dict) map back to the model's
  own state dict through the replay. Only rows where they do are used at run time.

The rows depend on ``data/shapes.json`` (which classes have templates, and the validation of
each): regenerate this table after regenerating that one. ``tests/test_checkpoint_templates.py``
re-learns a few rows and fails on drift.

Usage: ``python -m dimlint.tools.generate_load_names [--output PATH] [--only TYPE…]``
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dimlint.memory.checkpoint import load_names
from dimlint.memory.parameters import templates
from dimlint.tools import generate_shapes, list_items

DEFAULT_OUTPUT = Path(load_names.DATA_FILE)


def _serialize(transform: Any) -> list[Any]:
    from transformers.core_model_loading import WeightConverter, WeightRenaming, WeightTransform

    own_rename = type(transform).rename_source_key is WeightTransform.rename_source_key
    if isinstance(transform, WeightConverter) and own_rename:
        kind = "convert"
    elif isinstance(transform, WeightRenaming) and own_rename:
        kind = "rename"
    else:
        kind = "opaque"
    operations = [
        [type(op).__name__, int(getattr(op, "dim", 0) or 0)]
        for op in getattr(transform, "operations", []) or []
    ]
    return [
        kind,
        transform.compiled_sources.pattern,
        list(transform.source_patterns),
        list(transform.target_patterns),
        transform.scope_prefix,
        transform.base_model_prefix,
        operations,
    ]


def _patterns(value: object) -> list[str]:
    if not value:
        return []
    if isinstance(value, str):
        return [value]
    return [str(item) for item in value]  # type: ignore[attr-defined]


def learn_class(model: Any) -> dict[str, Any]:
    """The loading knowledge of one built model (see the module doc)."""
    from transformers.conversion_mapping import get_model_conversion_mapping
    from transformers.core_model_loading import revert_weight_conversion
    from transformers.modeling_utils import remove_tied_weights_from_state_dict

    state = model.state_dict()
    unique = dict(model.named_parameters())
    every = dict(model.named_parameters(remove_duplicate=False))
    by_id = {id(parameter): name for name, parameter in unique.items()}
    aliases = {
        load_names.fold(name): load_names.fold(by_id[id(parameter)])
        for name, parameter in every.items()
        if name not in unique and id(parameter) in by_id
    }
    tied = {
        name: by_id[id(parameter)]
        for name, parameter in every.items()
        if name not in unique and id(parameter) in by_id
    }
    buffers = sorted({load_names.fold(name) for name in state if name not in every})
    transforms = [_serialize(t) for t in get_model_conversion_mapping(model, add_legacy=False)]
    ignore = _patterns(getattr(model, "_keys_to_ignore_on_load_unexpected", None))
    ignore += _patterns(getattr(model, "_keys_to_ignore_on_load_missing", None))
    entry: dict[str, Any] = {
        "base": str(getattr(model, "base_model_prefix", "") or ""),
        "transforms": transforms,
        "buffers": buffers,
        "aliases": dict(sorted(aliases.items())),
        "tied": dict(sorted(tied.items())),
        "ignore": sorted(set(ignore)),
    }
    try:
        saved = revert_weight_conversion(model, remove_tied_weights_from_state_dict(state, model))
    except Exception as exc:  # a reverse conversion that fails on meta tensors
        entry["roundtrip"] = False
        entry["why"] = f"save: {type(exc).__name__}"
        return entry
    entry["roundtrip"] = _roundtrip(entry, saved, state)
    return entry


def legacy() -> list[list[Any]]:
    """transformers' legacy renames (``LayerNorm.gamma``, ``weight_g``…), applied after every
    class's own transforms: stored once in the table, not in every row."""
    from transformers.conversion_mapping import get_checkpoint_conversion_mapping

    return [_serialize(t) for t in get_checkpoint_conversion_mapping("legacy") or []]  # type: ignore[no-untyped-call]


def _roundtrip(entry: dict[str, Any], saved: Mapping[str, Any], state: Mapping[str, Any]) -> bool:
    """Whether replaying loading on the saved names gives back the model's names and shapes."""
    entry["roundtrip"] = True
    naming = _naming_of(entry)
    if naming is None:
        return False
    expected = {load_names.fold(name) for name in state}
    stored = {name: tuple(int(d) for d in tensor.shape) for name, tensor in saved.items()}
    mapped = load_names.to_model_names(stored, naming, expected)
    if mapped is None or mapped.unexpected:
        entry["why"] = "replay" if mapped is None else f"unexpected: {mapped.unexpected[:3]}"
        return False
    model_shapes = {name: tuple(int(d) for d in tensor.shape) for name, tensor in state.items()}
    wrong = [n for n, s in mapped.shapes.items() if model_shapes.get(n) != s]
    if wrong:
        entry["why"] = f"shapes: {wrong[:3]}"
        return False
    return True


def _naming_of(entry: dict[str, Any]) -> load_names.Naming | None:
    try:
        transforms = [load_names.Transform(item) for item in entry["transforms"] + legacy()]
    except re.error:
        entry["why"] = "regex"
        return None
    return load_names.Naming(
        transforms,
        entry["base"],
        frozenset(entry["buffers"]),
        entry["aliases"],
        entry["tied"],
        None,
    )


def learn(model_type: str) -> dict[str, Any]:
    """The row of one model type: its template classes that build."""
    import transformers
    from transformers import AutoConfig

    learned = templates.row(model_type)
    if learned is None:
        return {}
    try:
        config = AutoConfig.for_model(model_type)
    except Exception:
        return {}
    found: dict[str, Any] = {}
    for class_name, record in learned.get("classes", {}).items():
        if "tensors" not in record:
            continue
        model_class = getattr(transformers, class_name, None)
        if model_class is None:
            continue
        try:
            import torch

            with torch.device("meta"):
                model = model_class(config)
        except Exception as exc:
            found[class_name] = {"roundtrip": False, "why": f"build: {type(exc).__name__}"}
            continue
        try:
            found[class_name] = learn_class(model)
        except Exception as exc:
            found[class_name] = {"roundtrip": False, "why": f"learn: {type(exc).__name__}"}
            continue
        problem = validate(model_type, model_class, class_name, config, learned)
        found[class_name]["validated"] = problem is None
        if problem is not None:
            found[class_name]["why"] = problem
    return found


def _halved(config: Any, learned: dict[str, Any]) -> Any:
    """A config of the same class with every learned even size of 4 or more halved (fields
    the generator could not learn, and derived ones, keep their default; a list learned item
    by item, wav2vec2's ``conv_dim[0]``, is stated whole with its items halved; token ids
    past the halved vocabulary are unset)."""
    from dimlint.tools.generate_shapes import _derived, _extra_kwargs

    skip = set(learned.get("fixed", [])) | set(learned.get("derived", {}))
    changes: dict[str, int | None] = {
        path: value // 2
        for path, value in learned.get("defaults", {}).items()
        if isinstance(value, int)
        and not isinstance(value, bool)
        and value >= 4
        and value % 2 == 0
        and path not in skip
    }
    vocab = changes.get("vocab_size")
    if isinstance(vocab, int):
        # a token id past the halved vocabulary is no size, but nn.Embedding refuses a
        # padding index outside its table (Phi-3's pad_token_id 32000)
        for name, value in config.to_dict().items():
            if name.endswith("_token_id") and isinstance(value, int) and value >= vocab:
                changes[name] = None
    whole = list_items.as_lists(config, changes)
    return type(config)(**_extra_kwargs(config, whole, _derived(config)))


def validate(
    model_type: str, model_class: Any, class_name: str, config: Any, learned: dict[str, Any]
) -> str | None:
    """Whether the template predicts the tensors of another build than the one it was fitted
    on: every learned size halved at once, so that fields which agree at the defaults
    (OPT's ``word_embed_proj_dim`` and ``hidden_size``) are told apart. None when it does;
    else why not. Only validated classes get a tensor-by-tensor comparison."""
    import torch

    try:
        halved = _halved(config, learned)
        raw = json.loads(halved.to_json_string(use_diff=True))
        with torch.device("meta"):
            model = model_class(halved)
    except Exception as exc:
        return f"halved build: {type(exc).__name__}"
    raw["model_type"] = model_type
    raw["architectures"] = [class_name]
    tensors = templates.template_tensors(raw, class_name)
    if tensors is None:
        return "halved: no template"
    predicted: Counter[tuple[str, tuple[int, ...]]] = Counter()
    for tensor in tensors:  # a stage list's index stays in a template's name (conv_layers.0)
        predicted[(load_names.fold(tensor.name), tensor.shape)] += tensor.repeats
    names = {name for name, _ in predicted}
    built: Counter[tuple[str, tuple[int, ...]]] = Counter(
        (load_names.fold_into(name, names), tuple(int(d) for d in parameter.shape))
        for name, parameter in model.named_parameters()
    )
    wrong = sorted(set(predicted.items()) ^ set(built.items()))
    return f"halved differs: {wrong[:2]}" if wrong else None


def generate(only: Sequence[str] = (), progress: bool = False) -> dict[str, object]:
    import transformers
    from transformers.utils import logging

    logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    rows: dict[str, object] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model_type in only or templates.model_type_names():
            start = time.monotonic()
            found = learn(model_type)
            if found:
                rows[model_type] = found
            if progress:
                print(f"{model_type} {time.monotonic() - start:.1f}s", file=sys.stderr, flush=True)
    return {
        "transformers_version": transformers.__version__,
        "legacy": legacy(),
        "model_types": rows,
    }


def render(table: Mapping[str, object]) -> str:
    """One model type per line, so the reader parses one row without the rest."""
    return generate_shapes.render(table)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--only", nargs="*", default=[])
    args = parser.parse_args(argv)
    start = time.monotonic()
    table = generate(args.only, progress=True)
    if args.only:
        print(render(table))
        return 0
    args.output.write_text(render(table), encoding="utf-8")
    print(f"wrote {args.output} in {time.monotonic() - start:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
