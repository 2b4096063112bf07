"""Every list and dict field of every default config, moved once and built by transformers.

Issue 19 asks that a template answer exact only for lists it learned. This sweep finds the
lists programmatically: for each model type with a shape template, the default config as
``save_pretrained`` writes it (``to_json_string(use_diff=False)``), every non-empty list or dict
at the top level and inside sub-configs (a nested config dict is walked, not moved). Each is
moved once — a list of layer indices loses its last entry, 0/1 flags flip their first, a
per-layer plan gets its first kind replaced by another it holds, numbers double their first
item, a dict doubles its first number — and the class the template was learned on is built on
the meta device and compared with ``mem``'s count. A move transformers refuses is skipped.

Prints one line per move that is not a right count (``FALSE-EXACT`` first), then the tally:
``python scripts/list_field_sweep.py [model_type ...]`` (about 20 minutes for all types).
"""

from __future__ import annotations

import copy
import json
import signal
import sys
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

#: Lists and dicts no model shapes a tensor by (labels, token ids, generation, rotary tables).
SKIPPED = frozenset(
    {"id2label", "label2id", "architectures", "auto_map", "task_specific_params",
     "quantization_config", "rope_parameters", "rope_scaling", "bad_words_ids",
     "suppress_tokens", "begin_suppress_tokens", "forced_decoder_ids", "eos_token_id",
     "bos_token_id", "pad_token_id", "decoder_start_token_id"}
)  # fmt: skip
LIMIT_S = 20


class _OverTime(Exception):
    pass


def _expire(signum: int, frame: object) -> None:
    raise _OverTime


def _fields(obj: dict[str, Any], path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for key, value in obj.items():
        if key in SKIPPED:
            continue
        if isinstance(value, dict) and isinstance(value.get("model_type"), str):
            yield from _fields(value, (*path, key))
        elif isinstance(value, list | dict) and value:
            yield (*path, key)


def _moved(value: Any) -> Any:
    """One change of ``value`` that may change the model, or None."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, int) and not isinstance(item, bool) and item:
                return {**value, key: item * 2}
        return None
    if all(isinstance(item, bool) or item in (0, 1) for item in value):
        return [type(value[0])(not value[0]), *value[1:]]
    if all(isinstance(item, str) for item in value):
        other = next((item for item in value if item != value[0]), None)
        return None if other is None else [other, *value[1:]]
    if all(isinstance(item, int) and not isinstance(item, bool) for item in value):
        return value[:-1] if len(value) > 1 else [value[0] * 2]
    if all(isinstance(item, int | float) and not isinstance(item, bool) for item in value):
        return [value[0] * 2, *value[1:]]
    return None


def _count(raw: dict[str, Any], name: str) -> int | None:
    import torch
    import transformers

    model_class = getattr(transformers, name, None)
    if model_class is None:
        return None
    signal.signal(signal.SIGALRM, _expire)
    signal.alarm(LIMIT_S)
    try:
        config = transformers.AutoConfig.for_model(
            raw["model_type"], **{k: v for k, v in raw.items() if k != "model_type"}
        )
        with torch.device("meta"):
            model = model_class(config)
        return sum(int(p.numel()) for p in model.parameters())
    except (Exception, _OverTime):  # transformers refuses the move: no ground truth
        return None
    finally:
        signal.alarm(0)


def sweep(types: list[str]) -> Counter[str]:
    from transformers import AutoConfig
    from transformers.utils import logging

    from dimlint.config.normalize import specs_for_document
    from dimlint.memory import model_parameters
    from dimlint.memory.parameters import templates

    logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    tally: Counter[str] = Counter()
    for model_type in types:
        row = templates.row(model_type) or {}
        name = row.get("primary")
        if not isinstance(name, str):
            continue
        try:
            base = json.loads(AutoConfig.for_model(model_type).to_json_string(use_diff=False))
        except Exception:  # the default config itself fails: no template either
            continue
        base["architectures"] = [name]
        for path in _fields(base):
            raw = copy.deepcopy(base)
            target = raw
            for key in path[:-1]:
                target = target[key]
            moved = _moved(target[path[-1]])
            if moved is None:
                tally["not moved"] += 1
                continue
            target[path[-1]] = moved
            truth = _count(raw, name)
            if truth is None:
                tally["refused by transformers"] += 1
                continue
            counted = model_parameters(specs_for_document("config.json", raw))
            right = counted.total == truth
            status = ("exact" if right else "FALSE-EXACT") if counted.exact else "estimate"
            status += "" if counted.exact or not right else "-right"
            tally[status] += 1
            if status != "exact" and not status.endswith("-right"):
                note = "; ".join(counted.notes)[:140]
                print(f"{status:12} {model_type}.{'.'.join(path)} {truth} {counted.total} {note}")
                sys.stdout.flush()
    return tally


def main() -> int:
    from dimlint.memory.parameters import templates

    types = sys.argv[1:] or sorted(templates.model_type_names())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tally = sweep(types)
    print(dict(sorted(tally.items())))
    return 1 if tally["FALSE-EXACT"] else 0


if __name__ == "__main__":
    sys.exit(main())
