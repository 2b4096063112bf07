"""Boolean keywords a config class's ``__post_init__`` pops with a default, read from its source.

DETR's config (and Conditional-DETR's, Deformable-DETR's, DAB-DETR's and Table Transformer's)
builds a timm backbone unless it is given ``use_timm_backbone=False``:
``kwargs.pop("use_timm_backbone", True)``. The keyword is no field (``to_dict`` never shows it),
and the default needs timm, which the generator does not install: no class builds at the
default, and the type was never learned. Released configs saved by recent transformers state
``use_timm_backbone: false`` beside a ResNet ``backbone_config``. Each keyword popped with a
boolean default is a regime of its own: stated flipped, the type is learned there as a variant
(``use_timm_backbone=false``) where a class builds, and a config outside it stays an estimate.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any


def popped_flags(config_class: type[Any]) -> dict[str, bool]:
    """``{keyword: default}`` of each ``kwargs.pop("keyword", True|False)`` in the class's own
    ``__post_init__`` (a base class's are the base's: they hold for every type alike)."""
    method = config_class.__dict__.get("__post_init__")
    if method is None:
        return {}
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(method)))
    except (OSError, TypeError, SyntaxError):  # no source to read: nothing is known
        return {}
    found: dict[str, bool] = {}
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "pop"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "kwargs"
            and len(node.args) == 2
        ):
            continue
        key, default = node.args
        if (
            isinstance(key, ast.Constant)
            and isinstance(key.value, str)
            and isinstance(default, ast.Constant)
            and isinstance(default.value, bool)
        ):
            found[key.value] = default.value
    return found
