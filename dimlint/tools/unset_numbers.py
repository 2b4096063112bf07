"""Numbers a config class leaves unset (None) that some of its model classes require.

``Wav2Vec2ConformerConfig`` declares ``vocab_size: int | None = None``: the pre-training model
builds without it, the CTC head raises a ``ValueError`` (it needs the vocabulary size), so the
default config never builds that class and the shape generator learned no template for it,
though every released CTC config states the size. A class that fails at the default is built
again with each such field stated at a probe value; a field that makes it build is a regime of
its own (``path > 0``), learned as a variant row stated at the probe, where the field is a number
like any other and learning moves it (the CTC head's rows read it). A config leaving the field
unset stays with the default row, where that class is unbuilt.

A class that builds at the default may still change when such a number is stated: Nemotron-H's
``moe_latent_size`` (None: no latent projection around the experts) adds two projections per
expert layer, MMS's ``adapter_attn_dim`` (None: no adapters) adds an adapter to every layer of
the stable-layer-norm encoder. :func:`switching_numbers` finds those, by a build at a probe
value (with each flag flipped, where the default leaves the part out), and each is learned as
the same kind of regime.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: ``int``, ``int | None``, ``Optional[int]``: an annotation that admits an integer.
_INTEGER = re.compile(r"\bint\b")


def unset_numbers(config_class: Any, skip: Callable[[str], bool]) -> list[str]:
    """Top-level fields the dataclass ``config_class`` declares with default None and an
    annotation that admits an integer, less those ``skip`` rejects (token ids, switches)."""
    if not dataclasses.is_dataclass(config_class):
        return []
    return sorted(
        field.name
        for field in dataclasses.fields(config_class)
        if field.default is None
        and _INTEGER.search(str(field.type)) is not None
        and not skip(field.name)
    )


def required_numbers(
    unbuilt: Sequence[str],
    fields: Sequence[str],
    builds: Callable[[str, Mapping[str, object]], bool],
    probe: int,
) -> dict[str, int]:
    """The fields of ``fields`` that, stated at ``probe``, make some class of ``unbuilt``
    build (``builds(class_name, changes)``), each at ``probe``. Where no field alone does, the
    fewest that do together: all stated, then each dropped that the build does without
    (Dots1's experts need ``n_routed_experts``, ``n_shared_experts`` and
    ``num_experts_per_tok`` at once)."""
    found: dict[str, int] = {}
    for path in fields:
        if any(builds(class_name, {path: probe}) for class_name in unbuilt):
            found[path] = probe
    if found or not fields:
        return found
    for class_name in unbuilt:
        together = dict.fromkeys(fields, probe)
        if not builds(class_name, together):
            continue
        for path in fields:
            without = {name: value for name, value in together.items() if name != path}
            if builds(class_name, without):
                together = without
        return together
    return found


#: Values a switching number is stated at, the first that builds wins (a width that must divide
#: by a head count rejects the small ones).
PROBES = (8, 64, 256)


def switching_numbers(
    fields: Sequence[str],
    changes_tensors: Callable[[str, int], bool | None],
) -> dict[str, int]:
    """The fields of ``fields`` whose value stated at a probe of :data:`PROBES` changes the
    tensors of the class learned (``changes_tensors(field, probe)``: True or False, or None
    when the class rejects the value), each at the first probe the class accepts."""
    found: dict[str, int] = {}
    for path in fields:
        for probe in PROBES:
            changed = changes_tensors(path, probe)
            if changed is None:
                continue
            if changed:
                found[path] = probe
            break
    return found
