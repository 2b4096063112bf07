"""What a config class does with keys it declares no field for: alias, inert, or unknown.

Released configs state keys their config class only reads from its keyword arguments (BLOOM's
``n_embed``, GPT-NeoX's ``rotary_emb_base``, MiniMax-M2's ``rotary_dim``) or does not know at
all (Nemotron-H's ``num_hidden_layers``, LFM2's ``num_heads``). No field learning moved them,
so the run-time refused every config stating them, although the answer is often right (issue
19). This module probes the class and the models it builds, so that a row can say per key:

- ``alias`` (``{key: {"field": F, "wins": bool}}``): stating the key at ``v`` gives exactly
  the config stating the declared field ``F`` at ``v`` (the same dict, the same tensors in
  every class), at several values and depths; ``wins`` says which value the class keeps when
  both are stated (BLOOM's ``n_embed`` wins over ``hidden_size``);
- ``inert`` (a list of keys): stating it, at several values and depths, changes no field a
  learned tensor reads (only rotary tables and windows, or nothing at all) and every class
  builds the same tensors as without it, which meta builds prove (a key the class keeps as an
  attribute that the modeling code never reads).

Any other key (one whose value the modeling code reads, such as Glm4-MoE's ``head_dim``, or
that the class rejects) is left out and stays refused; so is every name the type's code reads
with a ``getattr`` fallback (:mod:`dimlint.tools.undeclared_reads`), whose read a flag the
default leaves off may reach. The probes build only configs and models on the meta device,
through the callables :mod:`dimlint.tools.generate_shapes` passes in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

#: The values a key is stated at: two, so that one differs from any fallback a read has.
TRIALS = (8, 48)

#: Builds the shapes of one class from a config (``generate_shapes._groups`` of a meta build).
Shapes = Callable[[Any, Any], object]


def flat(document: Mapping[str, Any]) -> dict[str, object]:
    """A config dict with its sub-config dicts one level down as ``key.name`` paths."""
    found: dict[str, object] = {}
    for key, value in document.items():
        if isinstance(value, dict) and "model_type" in value:
            for name, item in value.items():
                found[f"{key}.{name}"] = item
        else:
            found[key] = value
    return found


def changed(
    config_class: Any, base: Mapping[str, object], stated: Mapping[str, object]
) -> set[str]:
    """The paths whose value differs between the configs built from ``base`` and from ``base``
    with ``stated`` added, the stated keys themselves left out (ValueError: the class rejects
    either)."""
    try:
        before = flat(config_class(**base).to_dict())
        after = flat(config_class(**base, **stated).to_dict())
    except Exception as exc:  # the class rejects the keys or values
        raise ValueError(str(exc)) from exc
    paths = (set(before) | set(after)) - set(stated)
    return {path for path in paths if before.get(path) != after.get(path)}


def _value(config_class: Any, kwargs: Mapping[str, object], path: str) -> object:
    return flat(config_class(**kwargs).to_dict()).get(path)


def _same_builds(
    models: Sequence[Any],
    config_class: Any,
    a: Mapping[str, object],
    b: Mapping[str, object],
    shapes: Shapes,
) -> bool:
    try:
        first, second = config_class(**a), config_class(**b)
        return all(shapes(model, first) == shapes(model, second) for model in models)
    except Exception:  # a class that does not build with it: not proved
        return False


def alias(
    config_class: Any,
    models: Sequence[Any],
    key: str,
    depths: Sequence[Mapping[str, object]],
    shapes: Shapes,
) -> dict[str, object] | None:
    """``{"alias": F, "wins": …}`` when stating ``key`` at every trial and depth gives the
    config stating the top-level field ``F`` at that value (the fields the class derives from
    ``F`` moving alike: Falcon's ``ffn_hidden_size`` follows ``n_embed`` as it follows
    ``hidden_size``), and every class builds from it what stating ``F`` builds, at two
    multiples of ``F``'s value, else None."""
    target: str | None = None
    for base in depths:
        for trial in TRIALS:
            try:
                moved = changed(config_class, base, {key: trial})
                stated = flat(config_class(**base, **{key: trial}).to_dict())
            except Exception:  # the class rejects the key or value
                return None
            fields = [p for p in sorted(moved) if "." not in p and p not in base]
            fields = [p for p in fields if stated.get(p) == trial]
            if len(fields) != 1 or target not in (None, fields[0]):
                return None
            target = fields[0]
            if not _states_alike(config_class, base, stated, key, target, trial):
                return None  # another config, or stating the field moves the key otherwise
        # built at multiples of the field's value, which keep what it divides (heads)
        if target is None:
            return None
        default = flat(config_class(**base).to_dict()).get(target)
        if not isinstance(default, int) or isinstance(default, bool) or default <= 0:
            return None
        for value in (2 * default, 4 * default):
            if not _same_builds(
                models, config_class, {**base, key: value}, {**base, target: value}, shapes
            ):
                return None
    if target is None:
        return None
    try:
        both = _value(config_class, {**depths[0], key: TRIALS[0], target: TRIALS[1]}, target)
    except Exception:  # the class rejects both stated: which wins cannot be said
        return None
    if both not in TRIALS:
        return None
    return {"alias": target, "wins": both == TRIALS[0]}


def flag_alias(
    config_class: Any,
    models: Sequence[Any],
    key: str,
    depths: Sequence[Mapping[str, object]],
    shapes: Shapes,
) -> dict[str, object] | None:
    """:func:`alias` for a flag: stating ``key`` True and False at every depth gives the config
    stating one declared top-level flag ``F`` so (VideoMAE reads the old ``qkv_bias`` into
    ``qv_bias``), and every class builds from it what stating ``F`` builds, else None."""
    target = _moved_flag(config_class, key, depths)
    if target is None:
        return None
    for base in depths:
        for trial in (True, False):
            try:
                stated = flat(config_class(**base, **{key: trial}).to_dict())
            except Exception:  # the class rejects the key or value
                return None
            if stated.get(target) is not trial or not _states_alike(
                config_class, base, stated, key, target, trial
            ):
                return None
            if not _same_builds(
                models, config_class, {**base, key: trial}, {**base, target: trial}, shapes
            ):
                return None
    try:
        both = _value(config_class, {**depths[0], key: True, target: False}, target)
    except Exception:  # the class rejects both stated: which wins cannot be said
        return None
    return {"alias": target, "wins": both is True}


def _moved_flag(config_class: Any, key: str, depths: Sequence[Mapping[str, object]]) -> str | None:
    """The one declared top-level flag that stating ``key`` True or False moves off its value
    to the stated one, at the first depth and value where exactly one moves, else None."""
    for base in depths:
        for trial in (True, False):
            try:
                stated = flat(config_class(**base, **{key: trial}).to_dict())
                plain = flat(config_class(**base).to_dict())
            except Exception:  # the class rejects the key or value
                return None
            moved = [
                p
                for p, v in sorted(stated.items())
                if "." not in p and p != key and p not in base and v is trial
                and isinstance(plain.get(p), bool) and plain.get(p) is not trial
            ]  # fmt: skip
            if len(moved) == 1:
                return moved[0]
    return None


def _states_alike(
    config_class: Any,
    base: Mapping[str, object],
    stated: Mapping[str, object],
    key: str,
    target: str,
    trial: object,
) -> bool:
    """Whether the config ``stated`` (``key`` at ``trial``) is the one stating ``target`` at
    ``trial`` instead, ``key`` aside, and stating ``target`` leaves ``key`` unset or equal."""
    try:
        direct = flat(config_class(**base, **{target: trial}).to_dict())
    except Exception:  # the class rejects the field at the value
        return False
    return {p: v for p, v in stated.items() if p != key} == {
        p: v for p, v in direct.items() if p != key
    } and direct.get(key) in (None, trial)


def inert(
    config_class: Any,
    models: Sequence[Any],
    keys: Sequence[str],
    depths: Sequence[Mapping[str, object]],
    used: set[str],
    shapes: Shapes,
) -> list[str]:
    """The ``keys`` that, stated together or alone at every trial value and depth, move no
    field in ``used`` (those a learned tensor reads, ``fixed`` ones included) and build the
    same tensors in every class: bisected from all of them at once, so that a type whose keys
    are all inert costs a handful of builds."""

    def quiet(group: Sequence[str]) -> bool:
        for base in depths:
            for trial in TRIALS:
                stated = dict.fromkeys(group, trial)
                try:
                    moved = changed(config_class, base, stated)
                except ValueError:
                    return False
                fields = {path.split(".")[0] for path in moved} | moved
                if fields & used or not _same_builds(
                    models, config_class, base, {**base, **stated}, shapes
                ):
                    return False
        return True

    def split(group: Sequence[str]) -> list[str]:
        if not group:
            return []
        if quiet(group):
            return list(group)
        if len(group) == 1:
            return []
        half = len(group) // 2
        return split(group[:half]) + split(group[half:])

    return split(sorted(keys))


def depths(config: Any, derived: Iterable[str]) -> list[dict[str, object]]:
    """The configs probed: the default, and the default with its first layer count moved (a
    key's effect may follow the depth: a legacy count cut to the layers)."""
    found: list[dict[str, object]] = [{}]
    skip = set(derived)
    for key, value in sorted(config.to_dict().items()):
        if (
            "layers" in key
            and key not in skip
            and isinstance(value, int)
            and not isinstance(value, bool)
            and value > 1
        ):
            try:
                type(config)(**{key: value + 1})
            except Exception:  # the class rejects another depth: probed at the default only
                continue
            found.append({key: value + 1})
            break
    return found


def probe(
    config: Any,
    models: Sequence[Any],
    legacy: Iterable[str],
    undeclared: Iterable[str],
    used: set[str],
    derived: Iterable[str],
    shapes: Shapes,
) -> dict[str, object]:
    """The row's ``legacy_keys``: ``{"alias": {key: {"field": F, "wins": …}}, "inert": [key…]}``
    over the keys of ``legacy`` (read from keyword arguments) and of ``undeclared`` (names the
    code may read) found an alias or inert (see the module doc); empty when none is."""
    config_class = type(config)
    probed = depths(config, derived)
    aliases: dict[str, object] = {}
    for key in sorted(set(legacy)):
        mapped = alias(config_class, models, key, probed, shapes)
        if mapped is None:
            mapped = flag_alias(config_class, models, key, probed, shapes)
        if mapped is not None and mapped["alias"] in used:
            # one that sets a field no tensor reads is judged inert or not below
            aliases[key] = {"field": mapped["alias"], "wins": mapped["wins"]}
    rest = sorted((set(legacy) | set(undeclared)) - set(aliases))
    found: dict[str, object] = {}
    if aliases:
        found["alias"] = aliases
    quiet = inert(config_class, models, rest, probed, used, shapes)
    if quiet:
        found["inert"] = quiet
    return found
