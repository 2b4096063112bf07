"""The items of list-valued fields a template learned one at a time (``depths[2]``).

Vision configs state one number per stage: Swin's ``depths`` (blocks per stage) and
``num_heads``, ResNet's and SegFormer's ``hidden_sizes``, PVT's ``sr_ratios``. A template that
learned such a list only at its default could say nothing of ``depths = [2, 2, 18, 2]``. The
generator (:mod:`dimlint.tools.list_items`) therefore treats each item of a list of integers
the config class declares as a field of its own, named ``path[index]``, changes it alone in
builds and fits the tensors' counts and sizes on it (``layers.2.blocks.*`` repeat
``depths[2]`` times). A row learned so records each such list's length under ``items``; a
stated list of that length is read item by item (an item no build could change is ``fixed``
like any field), one of another length stays outside the template.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

#: ``backbone_config.depths[2]``: the list's path, then the item's index.
ITEM = re.compile(r"^(?P<list>[^\[\]]+)\[(?P<index>\d+)\]$")


def item_path(list_path: str, index: int) -> str:
    """The field name of one item: ``depths[2]``."""
    return f"{list_path}[{index}]"


def split(path: str) -> tuple[str, int] | None:
    """``(list path, index)`` of an item's field name, or None for any other field."""
    found = ITEM.match(path)
    return (found["list"], int(found["index"])) if found else None


def is_item_list(value: object) -> bool:
    """Whether ``value`` is a list whose items can be fields: integers, not booleans."""
    return (
        isinstance(value, list | tuple)
        and len(value) > 1
        and all(isinstance(item, int) and not isinstance(item, bool) for item in value)
    )


def learned_lengths(learned: dict[str, Any]) -> dict[str, int]:
    """The lists ``learned`` fitted item by item, with the length they had."""
    items = learned.get("items", {})
    return {str(path): int(length) for path, length in items.items()} if items else {}


def within(learned: dict[str, Any], path: str, stated: object) -> bool:
    """Whether the stated list at ``path`` is read item by item: the row learned its items
    and it has their number (each item is then judged as a field)."""
    length = learned_lengths(learned).get(path)
    return length is not None and is_item_list(stated) and len(stated) == length  # type: ignore[arg-type]


def item_value(stated: object, index: int) -> int | None:
    """Item ``index`` of a stated list, when it is an integer there."""
    if not isinstance(stated, list) or index >= len(stated):
        return None
    item = stated[index]
    return item if isinstance(item, int) and not isinstance(item, bool) else None


def read_as_pair(learned: dict[str, Any], path: str, stated: object, declared: object) -> bool:
    """Whether a number stated as a ``[height, width]`` pair (Donut's ``image_size = [960,
    720]``) stays inside: the class declares the field a number, learning changed it (it is
    ``examined``, not ``fixed``), and the template reads no tensor size from a pair, so a
    tensor whose size follows the field finds no value for it and the template refuses."""
    return (
        isinstance(declared, int)
        and not isinstance(declared, bool)
        and is_item_list(stated)
        and len(stated) == 2  # type: ignore[arg-type]
        and path in learned.get("examined", [])
        and path not in learned.get("fixed", [])
    )


def broken_division(learned: dict[str, Any], get: Callable[[str], int | None]) -> str | None:
    """Why the config's items break a division the row was learned inside (``item_divisions``:
    SegFormer's every stage width a multiple of its heads, see
    :func:`dimlint.tools.list_items.divisions`), or None. ``get`` reads an item's value."""
    for a, b in learned.get("item_divisions", []):
        for index in range(learned_lengths(learned).get(a, 0)):
            item, by = get(item_path(a, index)), get(item_path(b, index))
            if isinstance(item, int) and isinstance(by, int) and by > 0 and item % by:
                return (
                    f"{item_path(a, index)} = {item} is no multiple of"
                    f" {item_path(b, index)} = {by}: the template was learned where each is"
                )
    return None
