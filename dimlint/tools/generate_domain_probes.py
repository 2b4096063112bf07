"""Probe what single-field builds cannot show about each template's domain.

A shape template learns each field from builds that move it alone
(:mod:`dimlint.tools.generate_shapes`). Three holes remain, and meta builds probe them; the
run-time reads the result (:mod:`dimlint.memory.parameters.domain_probes`):

- **Flags.** Every boolean of the default config (sub-configs included) is flipped alone and
  the build compared with the run-time's count: a flip counted wrong while called exact
  (``wrong_flips``: Grounding-DINO's ``decoder_bbox_embed_share`` off, which field learning
  saw as inert) is recorded. A tensor's condition is what one flag's flip showed, and two can
  interact: Falcon's ``new_decoder_architecture`` turns ``input_layernorm`` into ``ln_attn`` and
  ``ln_mlp`` only while ``parallel_attn`` is on; with it off the layer keeps
  ``input_layernorm`` and adds ``post_attention_layernorm``, so a template that added each
  flag's own tensors counted a norm too many and called it exact. For every model type the
  flags its classes' tensors are conditioned on are flipped in pairs in the default config, the
  primary class is built on the meta device and compared with what the run-time counts for the
  same config. A pair counted wrong while called exact is recorded with the values that
  interact (``interacting``). A pair transformers refuses to build is not recorded (no ground
  truth), nor one the template already calls an estimate.
- **Integers.** A field is fitted from one move, and two values cannot tell a line from a
  floor: YOLOS's patch grid ``(512 // p) · (864 // p)`` was fitted through 16 and 32 as
  ``3024 - 81 p`` and a patch of 17 counted 550,656 parameters high, called exact. Every
  integer of the default config (sub-configs two levels deep) is moved to a value no learning
  build stated (:func:`moved_value`); where that is counted wrong while called exact, the
  default and the powers-of-two multiples a build confirms are recorded as the only proven
  values (``wrong_moves``), with the list beside the field that a stated copy of makes the
  number inert (DeepSeek-V3.2's ``mlp_layer_types`` beside ``first_k_dense_replace``).
- **Fields declared None.** The generator moves numbers and never a None, so a stated number
  for such a field was never built (Falcon's ``num_ln_in_parallel_attn``: 2 adds two norms).
  Each such field the row did not learn otherwise is stated at 1 and at 2; where both build the
  default's tensors, name for name and shape for shape, it is recorded ``inert_unset``
  (DeepSeek-V2's routing ``n_group``). The run-time refuses a stated integer for any other.

A flip recorded in ``wrong_flips`` or a move in ``wrong_moves`` is a template's defect, printed
for the generator to learn; until it does, the run-time calls a config that states it an
estimate.

transformers and torch are imported only inside functions. Usage::

    python -m dimlint.tools.generate_domain_probes [--output PATH] [--only TYPE...] [--cache FILE]
        [--shard K/N]

``--shard K/N`` judges every N-th type from the K-th into the cache and writes no table (run
N shards side by side, concatenate their caches, and run once more on the result to write it).

A full run flips every boolean, moves every integer and builds about 1,300 pairs and the None
fields of 820 types (about 20 minutes in one process; two shards side by side on two cores take
about 11); ``--cache`` keeps each type's result in a JSON-lines file and resumes from it.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import signal
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from dimlint.config import rowtable
from dimlint.memory.parameters.domain_probes import value_at

DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "data" / "domain_probes.json"
#: Numbers a field declared None is stated at: each must build the default's tensors.
UNSET_TRIALS = (1, 2)

#: Seconds one build may take before the pair is left unjudged.
LIMIT_S = 120


class _OverTime(Exception):
    pass


def _expire(signum: int, frame: object) -> None:
    raise _OverTime


def condition_flags(learned: dict[str, Any]) -> list[str]:
    """The paths of the booleans some tensor of some class of the row is conditioned on."""
    flags: set[str] = set()
    for record in learned.get("classes", {}).values():
        for tensor in record.get("tensors", []) or []:
            if isinstance(tensor, list) and len(tensor) > 3:
                flags |= {str(path) for path, value in tensor[3] if isinstance(value, bool)}
    return sorted(flags)


def _set(document: dict[str, Any], path: str, value: object) -> bool:
    """Set ``path`` (dotted into sub-config dicts) in ``document`` where it holds a value of
    ``value``'s type (a boolean for a boolean, an integer for an integer); False elsewhere."""
    parent, _, name = path.rpartition(".")
    holder = value_at(document, parent) if parent else document
    if not isinstance(holder, dict) or type(holder.get(name)) is not type(value):
        return False
    holder[name] = value
    return True


def _truth(document: dict[str, Any], class_name: str) -> int | None:
    """Parameters of ``class_name`` built from ``document`` on the meta device, None when
    transformers refuses the config or the build runs over :data:`LIMIT_S`."""
    shapes = _shapes(document, class_name)
    return None if shapes is None else sum(_numel(shape) for shape in shapes.values())


def _numel(shape: tuple[int, ...]) -> int:
    count = 1
    for size in shape:
        count *= size
    return count


def _shapes(document: dict[str, Any], class_name: str) -> dict[str, tuple[int, ...]] | None:
    """Every parameter's shape, by name, of ``class_name`` built from ``document`` on the meta
    device; None when transformers refuses the config or the build runs over :data:`LIMIT_S`."""
    import torch
    import transformers

    model_class = getattr(transformers, class_name, None)
    if model_class is None:
        return None
    kwargs = {key: value for key, value in document.items() if key != "model_type"}
    previous = signal.signal(signal.SIGALRM, _expire)
    signal.alarm(LIMIT_S)
    try:
        config = transformers.AutoConfig.for_model(document["model_type"], **kwargs)
        with torch.device("meta"):
            model = model_class(config)
        return {name: tuple(tensor.shape) for name, tensor in model.named_parameters()}
    except Exception:  # refused (or over time): no ground truth for this pair
        return None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _counted(document: dict[str, Any]) -> tuple[int | None, bool]:
    """What the run-time counts for ``document``, and whether it calls the count exact."""
    from dimlint.config.normalize import specs_for_document
    from dimlint.memory import model_parameters

    try:
        counted = model_parameters(specs_for_document("config.json", document))
    except Exception:  # judged as an estimate: never recorded as interacting
        return None, False
    return counted.total, counted.exact


def _exact(document: dict[str, Any], class_name: str) -> bool | None:
    """Whether the run-time's count of ``document``, called exact, is right (True) or wrong
    (False); None where it is called an estimate or transformers builds nothing."""
    ours, exact = _counted(document)
    if not exact or ours is None:
        return None
    truth = _truth(document, class_name)
    return None if truth is None else truth == ours


def _exact_at(base: dict[str, Any], changes: Mapping[str, object], class_name: str) -> bool | None:
    """:func:`_exact` of ``base`` with each path of ``changes`` set (None where one cannot be)."""
    document = copy.deepcopy(base)
    if not all(_set(document, path, value) for path, value in changes.items()):
        return None
    return _exact(document, class_name)


def default_document(model_type: str, class_name: str) -> dict[str, Any] | None:
    """The default config of ``model_type`` as a saved ``config.json`` naming ``class_name``."""
    from transformers import AutoConfig

    try:
        config = AutoConfig.for_model(model_type)
        document: dict[str, Any] = json.loads(config.to_json_string(use_diff=False))
    except Exception:  # no default config: the shape table has no template either
        return None
    document["architectures"] = [class_name]
    document["model_type"] = model_type
    return document


class _Subject(NamedTuple):
    """One model type as every probe judges it: its template row, the class the row counts
    (``primary``) and the default config saved naming it."""

    model_type: str
    learned: dict[str, Any]
    primary: str
    base: dict[str, Any]


def _subject(model_type: str) -> _Subject | str:
    """The type's :class:`_Subject`, or why it has none."""
    from dimlint.memory.parameters import templates

    learned = templates.row(model_type)
    primary = learned.get("primary") if learned else None
    if learned is None or not isinstance(primary, str):
        return "no template"
    base = default_document(model_type, primary)
    if base is None:
        return "no default config"
    return _Subject(model_type, learned, primary, base)


def judged(model_type: str) -> dict[str, Any]:
    """One type's result: :func:`judged_pairs`' with ``wrong_moves`` and ``inert_unset``
    added, or ``skipped`` with the reason."""
    subject = _subject(model_type)
    if isinstance(subject, str):
        return {"skipped": subject, "inert_unset": []}
    result = judged_pairs(subject)
    if "skipped" not in result:
        result["wrong_moves"] = wrong_moves(subject)
    result["inert_unset"] = inert_unset(subject)
    return result


def moved_value(value: int) -> int:
    """A value no learning build states: learning doubles or halves a field, or adds one
    where that breaks a divisibility (:func:`dimlint.tools.generate_shapes._trials`). One more
    than a value above 2 divides differently from it (a floor that a fit through two divisible
    points read as a line shows), and 0, 1, 2 move by 3."""
    return value + 1 if value > 2 else value + 3


def wrong_moves(subject: _Subject) -> list[list[object]]:
    """The integer fields of the default config (sub-configs two levels deep) that moved to
    :func:`moved_value` build other tensors than the template counts, called exact:
    ``[path, proven]`` each, ``proven`` the values a build confirmed (the default, and those
    of :func:`scaled` where the template counts them right). A
    field is fitted from one move; YOLOS's patch grid ``(512 // p) · (864 // p)``, fitted
    through ``p`` = 16 and 32 as ``3024 - 81 p``, counted a patch of 17 at 1,647 positions
    where transformers builds 1,500.

    Where the move is counted right once a list beside the field is left out, the entry
    names that list (``[path, proven, [list]]``): the class derives the list from the field
    and keeps a stated one (DeepSeek-V3.2's ``mlp_layer_types`` beside
    ``first_k_dense_replace``), so only a config stating both is outside."""
    base, primary = subject.base, subject.primary
    wrong: list[list[object]] = []
    for path in integers(base):
        value = value_at(base, path)
        if not isinstance(value, int):
            continue
        moved = moved_value(value)
        if _exact_at(base, {path: moved}, primary) is not False:
            continue
        proven = [value, *(v for v in scaled(value) if _exact_at(base, {path: v}, primary))]
        beside = _lists_beside(base, path, moved, primary)
        wrong.append([path, sorted(proven), beside] if beside else [path, sorted(proven)])
    return wrong


def scaled(value: int) -> list[int]:
    """The values a power of two up to 8 away from ``value``, doubled or halved (whole and
    positive): the patches, frames and widths a released config moves a field to, each then
    built and kept proven where the template counts it right (ViViT's 8 frames, a quarter of
    the default 32, where odd counts are floored)."""
    found = [value * 2**step for step in (1, 2, 3)]
    found += [value // 2**step for step in (1, 2, 3) if value % 2**step == 0 and value > 2**step]
    return found


def _lists_beside(base: dict[str, Any], path: str, value: int, class_name: str) -> list[str]:
    """The list fields beside ``path`` (in its own dict) whose absence makes the count of
    ``path`` at ``value`` right: the first that does alone, else all of them where only
    together they do, else none."""
    parent = path.rpartition(".")[0]
    holder = value_at(base, parent) if parent else base
    if not isinstance(holder, dict):
        return []
    lists = sorted(key for key, item in holder.items() if isinstance(item, list) and item)
    for keys in [[key] for key in lists] + ([lists] if len(lists) > 1 else []):
        document = copy.deepcopy(base)
        inner = value_at(document, parent) if parent else document
        if isinstance(inner, dict):
            for key in keys:
                inner.pop(key)
        if _exact_at(document, {path: value}, class_name):
            return keys
    return []


def inert_unset(subject: _Subject) -> list[str]:
    """The fields declared None (:func:`~dimlint.memory.parameters.domain_probes.unset_fields`)
    whose every stated trial number builds the primary class's default tensors."""
    from dimlint.memory.parameters.domain_probes import unset_fields

    base, primary = subject.base, subject.primary
    fields = unset_fields(subject.model_type, subject.learned)
    if not fields:
        return []
    default = _shapes(base, primary)
    if default is None:
        return []
    inert: list[str] = []
    for field in fields:
        if base.get(field) is not None:
            continue  # the class derives it: a stated number is judged as the derived field
        trials = (_shapes({**base, field: value}, primary) for value in UNSET_TRIALS)
        if all(shapes == default for shapes in trials):
            inert.append(field)
    return inert


def judged_pairs(subject: _Subject) -> dict[str, Any]:
    """One type's flips: ``interacting`` (``[[path, value], [path, value]]`` per pair of
    condition flags), the number of pairs ``checked``, and the single flips of any boolean of
    the default config that the template counts wrong as exact (``wrong_singles``,
    ``[path, value]`` each), or ``skipped`` with the reason."""
    base, primary = subject.base, subject.primary
    if _exact(base, primary) is not True:
        return {"skipped": "the default is not counted exact"}
    singles: list[list[object]] = []
    for path in booleans(base):
        flipped_value = not value_at(base, path)
        if _exact_at(base, {path: flipped_value}, primary) is False:
            singles.append([path, flipped_value])
    flipped: dict[str, bool] = {}
    for path in condition_flags(subject.learned):
        current = value_at(base, path)
        if isinstance(current, bool):
            flipped[path] = not current
    interacting: list[list[list[object]]] = []
    checked = 0
    for first, second in itertools.combinations(sorted(flipped), 2):
        checked += 1
        if any(path in (first, second) for path, _ in singles):
            continue  # already wrong alone: reported, not a pair's doing
        pair = {first: flipped[first], second: flipped[second]}
        if _exact_at(base, pair, primary) is False:
            interacting.append([[first, flipped[first]], [second, flipped[second]]])
    return {"checked": checked, "interacting": interacting, "wrong_singles": singles}


#: Booleans that choose runtime behaviour or bookkeeping, never a tensor.
_RUNTIME = frozenset(
    {"use_cache", "output_attentions", "output_hidden_states", "return_dict", "torchscript",
     "use_return_dict", "gradient_checkpointing", "_commit_hash", "tf_legacy_loss",
     "use_bfloat16", "chunk_size_feed_forward", "remove_invalid_values", "do_sample",
     "early_stopping", "output_scores", "return_dict_in_generate", "pruned_heads"}
)  # fmt: skip


def booleans(document: dict[str, Any]) -> list[str]:
    """Every boolean of ``document`` by dotted path (:func:`_paths`)."""
    return _paths(document, lambda value: isinstance(value, bool))


def integers(document: dict[str, Any]) -> list[str]:
    """Every integer of ``document`` by dotted path (:func:`_paths`), names that size nothing
    (token ids, windows, top-k: ``SIZES_NOTHING``) left out as well."""
    from dimlint.memory.parameters.domain_probes import SIZES_NOTHING

    return [
        path
        for path in _paths(document, lambda value: type(value) is int)
        if not SIZES_NOTHING.search(path.rpartition(".")[2])
    ]


def _paths(
    document: dict[str, Any], wanted: Callable[[object], bool], prefix: str = "", depth: int = 0
) -> list[str]:
    """The dotted paths of the ``wanted`` values of ``document``, sub-config dicts two levels
    deep, runtime switches and label maps left out."""
    paths: list[str] = []
    for key, value in document.items():
        if isinstance(value, dict) and depth < 2 and key not in ("id2label", "label2id"):
            paths += _paths(value, wanted, f"{prefix}{key}.", depth + 1)
        elif wanted(value) and key not in _RUNTIME:
            paths.append(f"{prefix}{key}")
    return paths


def _current(result: dict[str, Any]) -> bool:
    """Whether a cached result holds every part this generator judges (a cache written
    before the integer moves were probed is judged again)."""
    return "inert_unset" in result and ("wrong_moves" in result or "skipped" in result)


def _cached(cache: Path | None) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    if cache is not None and cache.exists():
        for line in cache.read_text(encoding="utf-8").splitlines():
            if line.strip():
                entry = json.loads(line)
                rows[entry["model_type"]] = entry["result"]
    return rows


def _types(only: Sequence[str] | None) -> Iterator[str]:
    from dimlint.memory.parameters import templates

    yield from only if only else sorted(templates.model_type_names())


def render(version: str, results: dict[str, dict[str, Any]]) -> str:
    """One model type per line (a :class:`~dimlint.config.rowtable.RowTable`); only types
    with an interacting pair, an inert unset field or a wrong single flip get a row."""
    rows = []
    for name, result in sorted(results.items()):
        row = {key: result[key] for key in ("interacting", "inert_unset") if result.get(key)}
        if result.get("wrong_singles"):
            row["wrong_flips"] = result["wrong_singles"]
        if result.get("wrong_moves"):
            row["wrong_moves"] = result["wrong_moves"]
        if row:
            rows.append((name, row))
    return rowtable.render(version, rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="table to write")
    parser.add_argument("--only", nargs="+", help="judge only these model types (no table)")
    parser.add_argument("--cache", type=Path, help="JSON-lines file of judged types, resumed")
    parser.add_argument("--shard", help="K/N: judge only every N-th type from the K-th")
    args = parser.parse_args(argv)
    shard, shards = (int(part) for part in args.shard.split("/")) if args.shard else (0, 1)
    import transformers
    from transformers.utils import logging

    logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    from dimlint.memory.parameters import domain_probes

    results = _cached(args.cache)
    with warnings.catch_warnings(), domain_probes.ignored():
        warnings.simplefilter("ignore")
        for index, model_type in enumerate(_types(args.only)):
            if index % shards != shard:
                continue
            result = results.get(model_type)
            if result is None or args.only or not _current(result):
                result = judged(model_type)
            results[model_type] = result
            if any(result.get(key) for key in ("interacting", "wrong_singles", "wrong_moves")):
                print(model_type, json.dumps(result), flush=True)
            if args.cache is not None:
                with args.cache.open("a", encoding="utf-8") as handle:
                    entry = {"model_type": model_type, "result": result}
                    handle.write(json.dumps(entry) + "\n")
    if args.only or args.shard:
        return 0
    args.output.write_text(render(transformers.__version__, results), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
