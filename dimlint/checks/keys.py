"""DL004 unknown-key: a key the model type does not have, one typo away from one it has.

transformers stores unknown keys as plain attributes without complaint, so
``"num_attention_head": 40`` is silently ignored and the default (32 for Llama) is used. Only
near misses are reported: configs carry plenty of legitimate extra keys (training metadata,
remote-code fields), and a key that is a field of *some* transformers model is left alone.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from dimlint import architectures
from dimlint.diagnostics import Applicability, Severity
from dimlint.normalize import INT_FIELDS
from dimlint.registry import Finding, PlannedFix, rule
from dimlint.sources.jsonspans import escape_pointer_token
from dimlint.spec import ModelSpec

#: Every spelling of a dimension that normalization understands.
DIMENSION_KEYS = frozenset(
    key for standard, spellings in INT_FIELDS.values() for key in (standard, *spellings)
)
#: Keys real configs carry that newer transformers dropped or renamed; not typos.
LEGACY_KEYS = frozenset({"rope_scaling", "rope_theta", "torch_dtype", "use_return_dict"})
_CUTOFF = 0.85


@rule(
    "DL004",
    "unknown-key",
    Severity.WARNING,
    "A key is not a field of the model type but is a near miss of one.",
    fix="sometimes",
)
def check_unknown_keys(spec: ModelSpec) -> Iterator[Finding]:
    arch = architectures.lookup(spec.model_type) if spec.model_type else None
    own = (arch.fields if arch else DIMENSION_KEYS) | architectures.base_fields()
    known_anywhere = architectures.all_fields() | DIMENSION_KEYS | LEGACY_KEYS
    candidates = sorted(own | (DIMENSION_KEYS if arch is None else frozenset()))
    for key in spec.raw:
        if key in own or key in known_anywhere or key.startswith("_"):
            continue
        match = difflib.get_close_matches(key, candidates, n=1, cutoff=_CUTOFF)
        if not match:
            continue
        intended = match[0]
        pointer = f"{spec.pointer}/{escape_pointer_token(key)}"
        kind = f"model type {spec.model_type!r}" if arch else "this config"
        message = (
            f"{key!r} is not a field of {kind}; did you mean {intended!r}? transformers keeps"
            f" unknown keys without complaint, so this value is ignored"
        )
        fix = None
        if intended in spec.raw:
            message += f" (and {intended!r} is also set, so it takes effect)"
        else:
            message += " and the default is used"
            fix = PlannedFix(
                Applicability.UNSAFE,
                f"rename {key!r} to {intended!r}",
                key_renames=((pointer, intended),),
            )
        yield Finding("DL004", message + ".", pointer, fix=fix)
