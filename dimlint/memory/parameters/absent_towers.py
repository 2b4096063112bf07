"""Sub-models a template never saw built (issue 19: exact only inside the learned domain).

A composite config class may leave a sub-config unset by default: ``Gemma4Config()`` has no
``vision_config`` and no ``audio_config``, so the default model is the language model alone
and the row's templates hold no tower tensor. A released config that states one
(``"audio_config": {...}``, even ``{}``) makes the class build that tower and its projection
into the language model, which no build of the template had: counting it from the template
would leave the tower out. The generator records such sub-configs in the row's ``absent``
(:func:`dimlint.tools.generate_shapes.refresh`) and learns each as a regime of its own
(``"vision_config={}"``: the tower stated at its class defaults, every field of it moved); a
stated one is outside the template unless the variant row chosen for the config states it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def absent_keys(
    raw: Mapping[str, Any], learned: Mapping[str, Any], held: Mapping[str, Any]
) -> list[str]:
    """The sub-configs ``raw`` states that its row's default config left unset (a sub-config
    stated as null is the default's). ``held``: what the variant row chosen for ``raw`` was
    learned stating; a tower stated there (``vision_config: {}``, learned at its class defaults
    with every field moved) was built."""
    return [
        key
        for key in learned.get("absent", []) or []
        if isinstance(raw.get(key), dict) and not isinstance(held.get(key), dict)
    ]


def stated_absent(
    raw: Mapping[str, Any], learned: Mapping[str, Any], held: Mapping[str, Any]
) -> str | None:
    """Why ``raw`` lies outside its template for a tower it never built (see
    :func:`absent_keys`), or None."""
    for key in absent_keys(raw, learned, held):
        return (
            f"{key} is stated, which the default config leaves unset: the template was"
            f" learned without that sub-model"
        )
    return None
