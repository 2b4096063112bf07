"""Every item of every list a template learned item by item, moved and built by transformers.

A row learned with list items as fields (``items``: Swin's ``depths``, ResNet's
``hidden_sizes``) counts a stated list of the learned length item by item. Each such item is
moved alone (doubled, tripled, plus one, halved) and every list is moved whole (doubled, and
a few seeded mixes of its items scaled by 1, 2, 3 or 4, as released configs mix them), the
class the template was learned on is built on the meta device and compared with ``mem``'s
count. A move transformers refuses is skipped.

Prints one line per move that is not a right count (``FALSE-EXACT`` first), then the tally:
``python scripts/list_item_sweep.py [model_type ...]`` (default: every row with ``items``).
"""

from __future__ import annotations

import copy
import importlib.util
import json
import random
import sys
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

_SWEEP = Path(__file__).resolve().parent / "list_field_sweep.py"
#: Seeded whole-list mixes per list (a fixed seed: the same moves on every run).
MIXES = 4


def _field_sweep() -> Any:
    spec = importlib.util.spec_from_file_location("list_field_sweep", _SWEEP)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def moves(value: list[int], seed: str) -> Iterator[tuple[str, list[int]]]:
    """``(what, moved list)``: each item alone, then the whole list."""
    for index, item in enumerate(value):
        for label, moved in (("x2", item * 2), ("x3", item * 3), ("+1", item + 1)):
            yield f"[{index}]{label}", [*value[:index], moved, *value[index + 1 :]]
        if item >= 2:
            yield f"[{index}]//2", [*value[:index], item // 2, *value[index + 1 :]]
    yield "all x2", [item * 2 for item in value]
    rng = random.Random(seed)
    for mix in range(MIXES):
        yield f"mix{mix}", [item * rng.choice((1, 2, 3, 4)) for item in value]


def sweep(types: list[str]) -> Counter[str]:
    from transformers import AutoConfig
    from transformers.utils import logging

    from dimlint.config.normalize import specs_for_document
    from dimlint.memory import model_parameters
    from dimlint.memory.parameters import templates

    count = _field_sweep()._count
    logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    tally: Counter[str] = Counter()
    for model_type in types:
        row = templates.row(model_type) or {}
        name = row.get("primary")
        if not isinstance(name, str) or not row.get("items"):
            continue
        try:
            base = json.loads(AutoConfig.for_model(model_type).to_json_string(use_diff=False))
        except Exception:  # the default config itself fails: no template either
            continue
        base["architectures"] = [name]
        for path in row["items"]:
            keys = path.split(".")
            holder = base
            for key in keys[:-1]:
                holder = holder.get(key, {})
            value = holder.get(keys[-1])
            if not isinstance(value, list):
                continue
            for what, moved in moves(value, f"{model_type}.{path}"):
                raw = copy.deepcopy(base)
                target = raw
                for key in keys[:-1]:
                    target = target[key]
                target[keys[-1]] = moved
                truth = count(raw, name)
                if truth is None:
                    tally["refused by transformers"] += 1
                    continue
                counted = model_parameters(specs_for_document("config.json", raw))
                right = counted.total == truth
                status = ("exact" if right else "FALSE-EXACT") if counted.exact else "estimate"
                status += "" if counted.exact or not right else "-right"
                tally[status] += 1
                if status != "exact":
                    note = "; ".join(counted.notes)[:120]
                    where = f"{model_type}.{path}{what} {moved}"
                    print(f"{status:14} {where} {truth} {counted.total} {note}")
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
