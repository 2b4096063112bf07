"""The longest context a config supports, derived the way vLLM derives ``max_model_len``.

vLLM (``config/model.py`` ``_get_and_verify_max_len``) takes the smallest of the position keys a
config states, then multiplies it by the rope scaling ``factor`` unless the rope type already
counts the scaling in ``max_position_embeddings`` (``su``/``longrope``/``llama3``, and every
Gemma-3 config); for ``yarn`` it scales ``original_max_position_embeddings``. A longer
``max_model_len`` is refused ("User-specified max_model_len (…) is greater than the derived
max_model_len (…)") unless ``VLLM_ALLOW_LONG_MAX_MODEL_LEN`` is set. DL502 and ``dimlint plan``'s
default context both use this.
"""

from __future__ import annotations

import math
from typing import Any

from dimlint.config.spec import ModelSpec
from dimlint.records import Record

#: vLLM's ``possible_keys``, in its order.
POSITION_KEYS = (
    "max_position_embeddings",
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_target_positions",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
)
#: Rope types whose ``max_position_embeddings`` already includes the scaling.
PRESCALED_ROPE = ("su", "longrope", "llama3")


class MaxLength(Record):
    """The derived length, the key it came from, and how rope scaling changed it."""

    value: int
    key: str
    #: JSON pointer of that key, for findings.
    pointer: str
    #: e.g. "× rope_scaling factor 4.0 (yarn, from original_max_position_embeddings 32768)".
    scaling: str


#: Lengths and factors past this are input errors (DL003), not numbers to compute with.
_LARGEST = 2**63 - 1


def _number(value: Any) -> float | None:
    """A positive finite number (NaN, infinities and integers past int64 are none)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not 0 < value <= _LARGEST:  # also False for NaN
        return None
    return float(value)


def derived_max_length(spec: ModelSpec) -> MaxLength | None:
    """The longest context vLLM accepts for ``spec`` without an override (None: no key)."""
    raw = spec.raw
    stated = [(key, raw[key]) for key in POSITION_KEYS if _number(raw.get(key)) is not None]
    if not stated:
        return None
    key, base = min(stated, key=lambda item: float(item[1]))
    length = float(base)
    scaling = ""
    rope = spec.rope_scaling.value if spec.rope_scaling is not None else None
    if isinstance(rope, dict) and "gemma3" not in (spec.model_type or ""):
        rope_type = str(rope.get("rope_type", rope.get("type", "default")))
        factor = _number(rope.get("factor"))
        if rope_type not in PRESCALED_ROPE and factor is not None and factor != 1:
            original = _number(rope.get("original_max_position_embeddings"))
            if rope_type == "yarn" and original is not None:
                length = original
                scaling = (
                    f" (yarn: original_max_position_embeddings {original:g} × factor {factor:g})"
                )
            else:
                scaling = f" (× {rope_type} rope scaling factor {factor:g})"
            length *= factor
    if not math.isfinite(length) or length > _LARGEST:
        return None  # a rope factor so large that no context could exceed the length
    return MaxLength(int(length), key, f"{spec.pointer}/{key}", scaling)
