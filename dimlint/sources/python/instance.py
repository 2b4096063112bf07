"""``self.x`` in a test helper class, read as the value its ``__init__`` gives it by default.

transformers' test suites (and the repositories that vendor them) build their small models in a
``ModelTester`` class: ``__init__(self, parent, hidden_size=32, num_attention_heads=4, …)``
stores each parameter (``self.hidden_size = hidden_size``) and ``get_config`` hands them to the
config class (``LlamaConfig(hidden_size=self.hidden_size, …)``). The config the tests build by
default is that call with the defaults, so ``self.hidden_size`` there is read as the default
literal — located at it, where a fix edits it — when the attribute is certain:

* it is assigned exactly once in the whole class (any method, augmented assignments counted),
  in ``__init__``'s own statements (not under an ``if``);
* the assigned value is a literal or a parameter of ``__init__`` with a default that
  ``__init__`` never rebinds.

Anything else (``self.x = x * 2`` is computed and fine; ``self.x`` reassigned in ``setUp``, a
parameter without a default) stays unknown. The linter asks for this only in test modules
(:func:`dimlint.sources.python.configs.is_test_module`), where such helpers live; in model
code ``self.x`` is whatever the caller passed.
"""

from __future__ import annotations

import libcst as cst

from dimlint.sources.python.scan import AttributeSite, Frame, Frames, Scan


def _class_of(frames: Frames) -> Frame | None:
    """The class whose method (or a scope inside it) ``frames`` are, if any."""
    for index in range(len(frames) - 2, -1, -1):
        if frames[index].kind == "class" and frames[index + 1].kind == "function":
            return frames[index]
    return None


class InstanceAttributes:
    """The ``self.x = …`` assignments of a module's classes, by class and attribute."""

    __slots__ = ("_sites",)

    def __init__(self, scan: Scan) -> None:
        self._sites: dict[tuple[int, str], list[AttributeSite]] = {}
        for site in scan.attributes:
            if site.receiver != "self":
                continue
            owner = _class_of(site.frames)
            if owner is not None:
                self._sites.setdefault((id(owner), site.attr), []).append(site)

    def lookup(
        self, node: cst.Attribute, frames: Frames
    ) -> tuple[cst.BaseExpression, Frames] | None:
        """The expression ``self.<attr>`` stands for and the scopes to read it in, or None."""
        if not isinstance(node.value, cst.Name) or node.value.value != "self":
            return None
        owner = _class_of(frames)
        if owner is None:
            return None
        sites = self._sites.get((id(owner), node.attr.value), [])
        if len(sites) != 1:
            return None
        site = sites[0]
        method = site.frames[-1]
        if method.name != "__init__" or site.frames[-2] is not owner or site.block != 0:
            return None
        value = site.value()
        if value is None:
            return None
        if isinstance(value, cst.Name):
            if method.bound.get(value.value) != 1:
                return None  # rebound in __init__, or not a parameter
            default = method.default(value.value)
            if default is None:
                return None
            return default, site.frames[:-1]  # defaults are read where the def is
        if isinstance(value, cst.Integer | cst.Float | cst.UnaryOperation):
            return value, site.frames
        return None
