"""Flags a class accepts only beside another flag: BERT's ``add_cross_attention``.

BERT-like layers refuse ``add_cross_attention=True`` unless ``is_decoder`` is True too ("should
be used as a decoder model if cross attention is added"), so flipping the first flag alone never
builds, and the shape generator left it ``fixed``: every TrOCR or vision-encoder-decoder whose
BERT or RoBERTa decoder attends to the image (all of them) fell outside the template.

The companion (``is_decoder``) is one of the flags the generator treats as inert. Where flipping
it alone leaves every class's tensors as they were, stating it flipped in the config everything
is learned from changes no tensor and lets the refused flag be learned like any other. A config
stating the refused flag without its companion is one transformers itself refuses, so the rows
learned beside the companion answer every config transformers builds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class _Generator(Protocol):
    """What this module needs of :mod:`dimlint.tools.generate_shapes`."""

    def _perturbed_many(
        self,
        config: Any,
        changes: Mapping[str, object],
        derived: set[str],
        extras: Mapping[str, object] | None = None,
    ) -> Any: ...

    def _build(self, model_class: Any, config: Any) -> Any: ...

    def _groups(self, model: Any) -> Any: ...

    def _values(self, config: Any) -> dict[str, int]: ...


def stated(
    primary: Any,
    classes: Sequence[Any],
    config: Any,
    held: Mapping[str, object],
    inert: frozenset[str],
    generator: _Generator,
) -> dict[str, bool]:
    """``{companion: flipped value}`` to state in the config learning starts from: for each
    top-level flag the ``primary`` class refuses flipped alone, the first inert flag that lets
    it build when flipped with it and, flipped alone, changes no tensor of any of ``classes``."""

    def tensors(model_class: Any, changes: Mapping[str, object]) -> Any:
        """The tensor groups built with ``changes``, None where the class refuses them."""
        try:
            changed = generator._perturbed_many(config, changes, set(), held) if changes else config
            return generator._groups(generator._build(model_class, changed))
        except Exception:  # the class refuses these values
            return None

    values = generator._values(config)
    flags = {
        path: value
        for path, value in values.items()
        if isinstance(value, bool) and "." not in path and path not in held
    }
    candidates = sorted(path for path in flags if path in inert)
    found: dict[str, bool] = {}
    for path, value in sorted(flags.items()):
        if path in inert or tensors(primary, {path: not value}) is not None:
            continue
        for companion in candidates:
            if companion in found:
                continue
            flipped = {companion: not flags[companion]}
            if tensors(primary, {path: not value, **flipped}) is None:
                continue
            if all(_unmoved(tensors(cls, {}), tensors(cls, flipped)) for cls in classes):
                found[companion] = not flags[companion]
                break
    return found


def _unmoved(base: object, flipped: object) -> bool:
    """Whether a class built both ways (``None``: it refused one) holds the same tensors."""
    return base is not None and flipped == base
