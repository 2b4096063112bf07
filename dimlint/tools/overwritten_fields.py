"""Fields a config class overwrites whatever the config states.

Some composite classes copy one sub-model's width into another after building them:
VibeVoice's ``__post_init__`` sets ``diffusion_head_config.hidden_size`` to
``text_config.hidden_size`` and ``vocab_size`` to the language model's. The generator fits a
tensor on whichever of two equal fields it meets first, so a template may read the copy (the
diffusion head's width) where the class reads the original; a released config that states the
copy at another value (VibeVoice-1.5B's 1536 beside a default 4096-wide language model)
would be counted at the stated value, which transformers never builds. Knowing which fields
the class overwrites, and from which field it copies each (``text_config.hidden_size``), lets
the run-time read the copy at the original's value, and refuse a statement it cannot check.

Config-only: each field is stated once at a trial value and read back, no model is built, so
the table's ``--refresh`` records it for every cached row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any


def overwritten(
    config: Any,
    paths: Iterable[str],
    base_values: Mapping[str, object],
    perturbed: Callable[[Any, dict[str, int]], Any],
    values_of: Callable[[Any], Mapping[str, object]],
    trials: Callable[[int], Iterator[int]],
) -> dict[str, str | None]:
    """Per path of ``paths`` (``hidden_size``, ``text_config.hidden_size``) whose stated value
    the class of ``config`` replaces (stated at a trial value, the built config holds another),
    the path it copies the value from (moved to a trial value, the replaced path follows it),
    or None when no single path does. ``perturbed(config, {path: value})`` builds the config
    with one path stated, ``values_of`` reads every path of a config, ``trials`` gives values
    to try. A path the class rejects at its first trial value is not judged (its stated values
    are then refused by the class itself, not replaced)."""
    found: dict[str, str | None] = {}
    for path in sorted(paths):
        trial = _trial(base_values.get(path), trials)
        if trial is None:
            continue
        try:
            built = perturbed(config, {path: trial})
        except Exception:  # the class refuses the value: nothing is replaced
            continue
        if values_of(built).get(path) != trial:
            found[path] = _source(config, path, base_values, perturbed, values_of, trials)
    return found


def _trial(value: object, trials: Callable[[int], Iterator[int]]) -> int | None:
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    trial = next(trials(value), None)
    return None if trial is None or trial == value else trial


def _source(
    config: Any,
    path: str,
    base_values: Mapping[str, object],
    perturbed: Callable[[Any, dict[str, int]], Any],
    values_of: Callable[[Any], Mapping[str, object]],
    trials: Callable[[int], Iterator[int]],
) -> str | None:
    """The path whose value ``path`` is a copy of: equal at the default, and followed by it
    when moved alone."""
    for other, value in sorted(base_values.items()):
        if other == path or value != base_values.get(path):
            continue
        trial = _trial(value, trials)
        if trial is None:
            continue
        try:
            built = values_of(perturbed(config, {other: trial}))
        except Exception:  # the class refuses the value: not this one
            continue
        if built.get(other) == trial and built.get(path) == trial:
            return other
    return None
