"""Sub-configs stated inside sub-configs, judged against the values the template was built with.

The shape generator moves the fields of a config and of its direct sub-configs, never those one
level deeper (Qwen2.5-Omni's ``thinker_config.vision_config``, SAM2's
``vision_config.backbone_config``): a template read them only at their default, and may even
have fitted such a tower's width to a field of its parent that equals it there (a released
Qwen2.5-Omni was once counted with a 3584-wide vision tower; it is 1280 wide). The row records
the numbers and flags of each nested sub-config's default (``nested``), so a config that
restates them (a full ``to_dict`` dump) stays inside the learned domain and one that changes
any of them does not, nor does one that states the outer sub-config without the inner one
(the outer class then builds its own default inner sub-config, not the composite's).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

#: The numbers and flags transformers 4's ``PretrainedConfig`` wrote into every dump, at its
#: defaults (generation settings, output switches, the decoder flags a tower never turns on):
#: a nested sub-config restating one at that value is the one the template was built with,
#: though transformers 5's ``to_dict``, which the row recorded, leaves them out.
LEGACY_BASE_DEFAULTS: dict[str, object] = {
    "add_cross_attention": False, "chunk_size_feed_forward": 0, "do_sample": False,
    "early_stopping": False, "encoder_no_repeat_ngram_size": 0, "is_decoder": False,
    "is_encoder_decoder": False, "max_length": 20, "min_length": 0, "no_repeat_ngram_size": 0,
    "num_beam_groups": 1, "num_beams": 1, "num_return_sequences": 1, "output_attentions": False,
    "output_hidden_states": False, "output_scores": False, "remove_invalid_values": False,
    "return_dict": True, "return_dict_in_generate": False, "tie_encoder_decoder": False,
    "top_k": 50, "torchscript": False, "use_bfloat16": False,
}  # fmt: skip
#: Token ids and indices size nothing (the generator's ``_ID_FIELD``).
_ID_FIELD = re.compile(r"(^|_)(id|ids|token_id|index)$")


def flat_numbers(document: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, object]]:
    """Every integer and boolean of ``document`` and of the dicts it holds, by dotted path
    (token ids and private keys such as ``_attn_implementation_autoset`` left out)."""
    for key, value in sorted(document.items(), key=lambda item: str(item[0])):
        name = str(key)  # a JSON object's keys are strings; a config's own dicts may not be
        if name.startswith("_"):
            continue
        path = f"{prefix}{name}"
        if isinstance(value, dict):
            yield from flat_numbers(value, f"{path}.")
        elif isinstance(value, bool) or (isinstance(value, int) and not _ID_FIELD.search(name)):
            yield path, value


def unlearned_nested(
    raw: Mapping[str, Any],
    sub_key: str,
    inner_key: str,
    recorded: Mapping[str, Any] | None,
    injected: bool = False,
) -> str | None:
    """Why the stated ``raw[sub_key][inner_key]`` lies outside the template, or None: a number
    or flag it states that differs from (or is absent in) the default the row recorded, or,
    where the composite's default differs from the outer class's own (``injected``: the row's
    ``nested_injected``), a stated outer sub-config that leaves it out."""
    sub = raw.get(sub_key)
    nested = sub.get(inner_key) if isinstance(sub, dict) else None
    if isinstance(sub, dict) and sub.get(inner_key) is None and injected:
        # the stated sub-config builds its own default inner one, which need not be the
        # composite's (PI0's ``vlm_config`` without its ``text_config``)
        return (
            f"{sub_key} states no {inner_key}: its class builds its own default one, and the"
            " template was learned with the composite's"
        )
    if not isinstance(nested, dict):
        return None
    for path, value in flat_numbers(nested):
        if (recorded is None or path not in recorded) and _legacy_base_default(path, value):
            continue
        if recorded is None or path not in recorded or recorded[path] != value:
            where = f"{sub_key}.{inner_key}.{path}"
            default = (
                "" if recorded is None or path not in recorded else f" (only {recorded[path]})"
            )
            return (
                f"{where} = {value}: a sub-config inside a sub-config, which no build moved"
                f"{default}"
            )
    return None


_MISSING = object()


def _legacy_base_default(path: str, value: object) -> bool:
    """Whether ``path`` (in the nested sub-config or one of its own) is a key transformers 4
    dumped into every config, stated at its default (``value == default`` with the type too:
    ``True`` is no ``1``)."""
    default = LEGACY_BASE_DEFAULTS.get(path.rsplit(".", 1)[-1], _MISSING)
    return type(default) is type(value) and default == value
