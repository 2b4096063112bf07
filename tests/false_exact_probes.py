"""Hostile variants of released configs, each exact-labelled count checked on the meta device.

The released halves (:mod:`released_ground_truth`) are configs as their authors wrote them; a
user's pull request moves one field, states a key the release leaves out, names another head
class. Each probe takes released configs in a seeded random order, changes them one way, builds
the result with transformers and compares every count ``mem`` labels exact; a count labelled
exact that differs is a false exact, the worst answer the tool can give. The halves gathered to
stay unseen (``unseen12`` and later) are left out. Not part of the suite (minutes per run)::

    python tests/false_exact_probes.py MODE [SEED] [COUNT]

MODE is ``moved`` (one number or flag of the config or of a sub-config moved), ``stated`` (one
number or flag the config leaves out, stated at another value than its class default), ``pair``
(two fields moved at once, strings and list items too, up to two levels deep), ``head`` (another
head class of the model type, with a random label count) or ``stray`` (a key other config
classes use and this one does not declare).
"""

from __future__ import annotations

import copy
import json
import random
import sys
import warnings
from collections.abc import Callable
from typing import Any

import released_ground_truth as truth

#: Halves gathered after the probes were written: kept unseen by them.
UNSEEN = ("unseen12", "unseen13", "unseen14", "unseen15", "unseen16")
#: Name endings of numbers that size nothing (ids, rates, epsilons).
_INERT = ("id", "ids", "token_id", "eps", "dropout", "range", "std", "theta", "factor", "prob",
          "_rate", "seed")  # fmt: skip
_STRINGS = {
    "hidden_act": ["gelu", "relu", "silu", "gelu_new", "swiglu", "geglu"],
    "position_embedding_type": ["absolute", "relative_key", "relative_key_query", "rotary"],
    "feat_extract_norm": ["group", "layer"],
}
_STRAY = ["n_embd", "n_layer", "n_head", "n_inner", "num_layers", "d_model", "d_ff", "ffn_dim",
          "hidden_dim", "head_dim", "num_key_value_heads", "num_kv_heads", "kv_channels",
          "intermediate_size", "embedding_size", "projection_dim", "num_experts", "bias",
          "attention_bias", "mlp_bias", "qkv_bias", "parallel_attn", "new_decoder_architecture",
          "use_qk_norm"]  # fmt: skip
_SKIPPED = ("id2label", "label2id", "architectures", "model_type", "torch_dtype",
            "transformers_version", "auto_map")  # fmt: skip

Path = tuple[str, ...]


def _fields(raw: dict[str, Any], prefix: Path = (), depth: int = 0) -> list[tuple[Path, Any]]:
    found: list[tuple[Path, Any]] = []
    for key, value in raw.items():
        path = (*prefix, key)
        if key in _SKIPPED:
            continue
        if isinstance(value, dict) and depth < 2:
            found += _fields(value, path, depth + 1)
        elif _probed(key, value):
            found.append((path, value))
    return found


def _probed(key: str, value: object) -> bool:
    """A flag, a string of :data:`_STRINGS`, or a positive number or list of numbers that may
    size something."""
    if isinstance(value, bool):
        return True
    if isinstance(value, str):
        return key in _STRINGS
    sized = (isinstance(value, int) and value > 0) or _int_list(value)
    return sized and not key.endswith(_INERT)


def _int_list(value: object) -> bool:
    return (
        isinstance(value, list)
        and 0 < len(value) <= 16
        and all(isinstance(item, int) and not isinstance(item, bool) and item > 0 for item in value)
    )


def _moved(rng: random.Random, path: Path, value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, str):
        return rng.choice([other for other in _STRINGS[path[-1]] if other != value])
    if isinstance(value, int):
        return rng.choice([value * 2, max(1, value // 2), value + 1])
    items = list(value)
    index = rng.randrange(len(items))
    items[index] = _moved(rng, path, items[index])
    return items


def _set(raw: dict[str, Any], path: Path, value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(raw)
    holder = changed
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value
    return changed


def _moved_fields(rng: random.Random, raw: dict[str, Any], count: int) -> dict[str, Any] | None:
    fields = [
        field
        for field in _fields(raw)
        if count > 1 or (len(field[0]) <= 2 and not isinstance(field[1], str | list))
    ]
    if len(fields) < count:
        return None
    for path, value in rng.sample(fields, count):
        raw = _set(raw, path, _moved(rng, path, value))
    return raw


def _stated(rng: random.Random, raw: dict[str, Any]) -> dict[str, Any] | None:
    from transformers import AutoConfig

    try:
        defaults = AutoConfig.for_model(raw["model_type"]).to_dict()
    except Exception:  # a type the installed transformers cannot build a default of
        return None
    options = [
        (key, value)
        for key, value in defaults.items()
        if key not in raw
        and not key.startswith("_")
        and (isinstance(value, bool) or (isinstance(value, int) and value > 0))
        and not key.endswith(_INERT)
        and key not in ("num_labels", "transformers_version")
    ]
    if not options:
        return None
    key, value = rng.choice(options)
    return {**raw, key: _moved(rng, (key,), value)}


def _head(rng: random.Random, raw: dict[str, Any]) -> dict[str, Any] | None:
    import transformers
    from transformers.models.auto import modeling_auto

    classes: set[str] = set()
    for name in dir(modeling_auto):
        if name.startswith("MODEL_") and name.endswith("_MAPPING_NAMES"):
            entry = getattr(modeling_auto, name).get(raw.get("model_type"))
            for class_name in [entry] if isinstance(entry, str) else list(entry or ()):
                if hasattr(transformers, class_name):
                    classes.add(class_name)
    classes -= set(raw.get("architectures") or [])
    if not classes:
        return None
    labels = rng.choice([1, 2, 3, 5, 17, 1000])
    changed = {key: value for key, value in raw.items() if key not in ("label2id", "num_labels")}
    changed["architectures"] = [rng.choice(sorted(classes))]
    changed["id2label"] = {str(index): f"L{index}" for index in range(labels)}
    return changed


def _stray(rng: random.Random, raw: dict[str, Any]) -> dict[str, Any] | None:
    options = [key for key in _STRAY if key not in raw]
    numbers = [v for v in raw.values() if isinstance(v, int) and not isinstance(v, bool) and v > 1]
    if not options:
        return None
    key = rng.choice(options)
    if key in ("bias", "attention_bias", "mlp_bias", "qkv_bias", "parallel_attn",
               "new_decoder_architecture", "use_qk_norm"):  # fmt: skip
        return {**raw, key: rng.choice([True, False])}
    base = rng.choice(numbers) if numbers else 64
    return {**raw, key: rng.choice([base, base * 2, max(1, base // 2), 1, 8, 128])}


MODES: dict[str, Callable[[random.Random, dict[str, Any]], dict[str, Any] | None]] = {
    "moved": lambda rng, raw: _moved_fields(rng, raw, 1),
    "stated": _stated,
    "pair": lambda rng, raw: _moved_fields(rng, raw, 2),
    "head": _head,
    "stray": _stray,
}


def probe(mode: str, seed: int, count: int) -> tuple[int, int, list[str]]:
    """(configs probed, labelled exact, the false exacts found) over ``count`` variants."""
    rng = random.Random(seed)
    rows = [row for row in truth.sources() if row["half"] not in UNSEEN]
    rng.shuffle(rows)
    probed = exact = 0
    false: list[str] = []
    for row in rows:
        if probed >= count:
            break
        with open(truth.ROOT / row["file"], encoding="utf-8") as handle:
            raw = json.load(handle)
        changed = MODES[mode](rng, raw)
        if changed is None:
            continue
        built, _ = truth.transformers_count(changed)
        if built is None:
            continue
        ours, labelled, _ = truth.dimlint_count(changed)
        probed += 1
        if labelled:
            exact += 1
            if ours != built:
                changes = {key: value for key, value in changed.items() if raw.get(key) != value}
                false.append(f"{row['file']}: {changes} transformers {built}, mem {ours}")
                print(f"FALSE EXACT {false[-1]}", flush=True)
    return probed, exact, false


def main(argv: list[str]) -> int:
    import transformers

    transformers.logging.set_verbosity_error()
    warnings.simplefilter("ignore")
    mode, seed, count = argv[0], int(argv[1]) if len(argv) > 1 else 0, 250
    if len(argv) > 2:
        count = int(argv[2])
    probed, exact, false = probe(mode, seed, count)
    print(f"{mode} seed {seed}: probed {probed}, labelled exact {exact}, false exact {len(false)}")
    return 1 if false else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
