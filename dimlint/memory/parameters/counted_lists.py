"""List fields that count layers another field counts, moved with it.

Some config classes keep a layer count twice: GPT-Neo states ``num_layers = 24`` and
``attention_types = [[["global", "local"], 12]]``, a pattern repeated 12 times, and its
validator refuses a config whose expanded pattern is not ``num_layers`` long. Moving
``num_layers`` alone is refused at every value, so the field was ``fixed`` and GPT-Neo-125M's
12 layers lay outside the template. :func:`companions` scales such a list with the field:
every integer in it by ``trial / value``, when each stays whole (12 → 6 for 12 layers).

The generator records each such list with its default in the row's ``counted_lists``; at run
time a config that moves the field must state each list as :func:`scaled` from its default
(:func:`outside`): left at its default, the class refuses the config, and stated otherwise, no
build learned it.
"""

from __future__ import annotations

from typing import Any


def companions(config: Any, path: str, value: int, trial: int) -> dict[str, Any]:
    """``{field: scaled list}`` for the list-valued top-level fields of ``config`` (``path``
    excluded) holding integers that all scale whole from ``value`` to ``trial``."""
    if "." in path or value <= 0 or trial <= 0:
        return {}
    found: dict[str, Any] = {}
    for name, stated in config.to_dict().items():
        if name == path or not isinstance(stated, list):
            continue
        scaled = _scaled(stated, value, trial)
        if scaled is not None and scaled != stated:
            found[name] = scaled
    return found


def outside(counted: dict[str, Any], stated: Any, path: str, value: object) -> str | None:
    """Why a config stating ``path`` at ``value`` lies outside the row's ``counted_lists``
    (``{path: [default, {list: default list}]}``): a list counting the same layers is not
    stated scaled to it. None inside."""
    entry = counted.get(path)
    if not isinstance(entry, list) or not isinstance(value, int) or isinstance(value, bool):
        return None
    default, lists = entry
    if value == default:
        return None
    for name, default_list in lists.items():
        wanted = _scaled(default_list, default, value)
        found = stated(name)
        if found != wanted:
            return (
                f"{path} = {value} with {name} = {found!r}: the template learned {name}"
                f" moved with {path} ({wanted!r} here), as the class requires"
            )
    return None


def _scaled(item: Any, value: int, trial: int) -> Any:
    """``item`` with every positive integer scaled by ``trial / value``; None where one does
    not stay whole (then the list does not count ``value``)."""
    if isinstance(item, bool) or not isinstance(item, int | list):
        return item
    if isinstance(item, int):
        if item <= 0:
            return item
        return item * trial // value if item * trial % value == 0 else None
    scaled = [_scaled(inner, value, trial) for inner in item]
    return None if any(inner is None for inner in scaled) else scaled
