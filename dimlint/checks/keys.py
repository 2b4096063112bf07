"""DL004 unknown-key: a key the model type does not have, one typo away from one it has.

transformers stores unknown keys as plain attributes without complaint, so
``"num_attention_head": 40`` is silently ignored and the default (32 for Llama) is used. Only
typos are reported — configs carry plenty of legitimate extra keys — so a key counts as a typo
of a field only when:

* it is not a field of *any* transformers model (nor a legacy one): ``n_head`` in a Llama
  config is a deliberate spelling, not a typo;
* it is within two single-character edits (insert, delete, substitute, swap) of the field;
* it does not merely add or drop a whole word (``mm_hidden_size`` is not ``hidden_size``);
* its value has the field's JSON type.

When the field it resembles is set too, the near miss is a leftover that silently does nothing
(``"num_hiden_layers": 40`` beside ``num_hidden_layers``): reported, with no fix — which value
was meant is for the author to say. Look-alike characters (a Cyrillic letter for an ``e``)
are named by their code points, since the two keys print the same.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from dimlint.checks.registry import Finding, PlannedFix, rule
from dimlint.config import architectures
from dimlint.config.normalize import INT_FIELDS
from dimlint.config.pointers import escape_pointer_token
from dimlint.config.spec import ModelSpec
from dimlint.diagnostics import Applicability, Severity

#: Every spelling of a dimension that normalization understands.
DIMENSION_KEYS = frozenset(
    key for standard, spellings in INT_FIELDS.values() for key in (standard, *spellings)
)
#: Keys written by transformers 4's PretrainedConfig (generation and export settings) and since
#: dropped or renamed; released configs are full of them and they are not typos.
LEGACY_KEYS = frozenset(
    {
        "rope_scaling",
        "rope_theta",
        "torch_dtype",
        "use_return_dict",
        "tie_encoder_decoder",
        "output_scores",
        "return_dict_in_generate",
        "forced_bos_token_id",
        "forced_eos_token_id",
        "remove_invalid_values",
        "exponential_decay_length_penalty",
        "suppress_tokens",
        "begin_suppress_tokens",
        "max_length",
        "min_length",
        "do_sample",
        "early_stopping",
        "num_beams",
        "num_beam_groups",
        "diversity_penalty",
        "temperature",
        "top_k",
        "top_p",
        "typical_p",
        "repetition_penalty",
        "length_penalty",
        "no_repeat_ngram_size",
        "encoder_no_repeat_ngram_size",
        "bad_words_ids",
        "num_return_sequences",
        "torchscript",
        "use_bfloat16",
        "tf_legacy_loss",
        "pruned_heads",
        "is_decoder",
        "add_cross_attention",
        "cross_attention_hidden_size",
        "finetuning_task",
        "tokenizer_class",
        "prefix",
        "sep_token_id",
        "task_specific_params",
        "decoder_start_token_id",
    }
)
MAX_EDITS = 2


def edit_distance(a: str, b: str, limit: int = MAX_EDITS) -> int:
    """Optimal-string-alignment distance, giving up (returning limit + 1) past ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    # A common prefix and suffix cost no edit: the table is built for the differing middle only
    # (a typo of a 20-letter field leaves a few letters; tests compare with the whole table).
    start, shorter = 0, min(len(a), len(b))
    while start < shorter and a[start] == b[start]:
        start += 1
    end = 0
    while end < shorter - start and a[-1 - end] == b[-1 - end]:
        end += 1
    a, b = a[start : len(a) - end], b[start : len(b) - end]
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, char_b in enumerate(b, 1):
            # min(deletion, insertion, substitution), compared inline: this loop runs for
            # every cell of every candidate pair, and a call to min() costs more than the cell
            best = previous[j] + 1
            insertion = current[j - 1] + 1
            if insertion < best:  # noqa: PLR1730 (inline on purpose, see above)
                best = insertion
            substitution = previous[j - 1] + (char_a != char_b)
            if substitution < best:  # noqa: PLR1730
                best = substitution
            if i > 1 and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                transposition = previous2[j - 2] + 1
                if transposition < best:  # noqa: PLR1730
                    best = transposition
            current[j] = best
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]


def _word_added_or_dropped(key: str, field: str) -> bool:
    ours, theirs = set(key.split("_")), set(field.split("_"))
    return ours != theirs and (ours < theirs or ours > theirs)


@functools.cache
def _by_length(fields: frozenset[str]) -> dict[int, list[str]]:
    buckets: dict[int, list[str]] = {}
    for field in fields:
        if len(field) >= 6:
            buckets.setdefault(len(field), []).append(field)
    return buckets


@functools.cache
def _letters(word: str) -> int:
    """The letters of a word as bits of an integer (every non-ASCII letter shares one bit).

    ``popcount(a ^ b)`` never exceeds the number of letters in one word and not the other, so
    the filter below can only let through more candidates than a set difference, never fewer,
    and an integer ``^`` costs less than building a set for each of thousands of pairs.
    """
    bits = 0
    for char in word:
        code = ord(char)
        bits |= 1 << (code if code < 128 else 128)
    return bits


@functools.cache
def closest_field(key: str, fields: frozenset[str]) -> str | None:
    """The field ``key`` is a typo of, if any (ties: the alphabetically first)."""
    best: tuple[int, str] | None = None
    buckets = _by_length(fields)
    letters = _letters(key)
    for size in range(len(key) - MAX_EDITS, len(key) + MAX_EDITS + 1):
        for field in buckets.get(size, ()):
            if (letters ^ _letters(field)).bit_count() > 2 * MAX_EDITS:
                continue  # cheap filter: too many distinct letters differ for two edits
            if _word_added_or_dropped(key, field):
                continue
            distance = edit_distance(key, field)
            if distance <= MAX_EDITS and (best is None or (distance, field) < best):
                best = (distance, field)
    return best[1] if best else None


def _same_kind(spec: ModelSpec, key: str, field: str) -> bool:
    """A typo keeps the value's JSON type; a list where the field holds a mapping is another key.

    (DeepSeek-V4 configs carry a per-layer ``compress_ratios`` list that transformers reads
    as a legacy spelling, next to the ``compress_rates`` mapping.)
    """
    arch = architectures.lookup(spec.model_type) if spec.model_type else None
    default = arch.defaults.get(field) if arch else None
    if default is None:
        return True
    value = spec.raw[key]
    kinds = ((bool,), (int, float), (str,), (list,), (dict,))
    return any(isinstance(value, kind) and isinstance(default, kind) for kind in kinds)


@functools.cache
def _own_fields(model_type: str | None) -> frozenset[str]:
    """The type's fields and the names its ``attribute_map`` maps onto them (VipLLaVA's
    ``vision_feature_layers`` is ``vision_feature_layer``): keys the class reads."""
    arch = architectures.lookup(model_type) if model_type else None
    own = (arch.fields | frozenset(arch.aliases)) if arch else DIMENSION_KEYS
    return own | architectures.base_fields()


@functools.cache
def _known_anywhere() -> frozenset[str]:
    return architectures.all_fields() | DIMENSION_KEYS | LEGACY_KEYS


@rule(
    "DL004",
    "unknown-key",
    Severity.WARNING,
    "A key is not a field of the model type but is a near miss of one.",
    fix="always",
)
def check_unknown_keys(spec: ModelSpec) -> Iterator[Finding]:
    arch = architectures.lookup(spec.model_type) if spec.model_type else None
    own = _own_fields(spec.model_type if arch else None)
    for key in spec.raw:
        if key in own or key.startswith("_") or len(key) < 6:
            continue
        if key in _known_anywhere():  # read only when a key is not the type's own field
            continue
        intended = closest_field(key, own)
        if intended is None or not _same_kind(spec, key, intended):
            continue
        pointer = f"{spec.pointer}/{escape_pointer_token(key)}"
        kind = f"model type {spec.model_type!r}" if arch else "this config"
        lookalikes = _lookalikes(key, intended)
        if intended in spec.raw:
            if not _misspelt_word(key):
                continue  # model_dtype beside model_type: two real keys, not a leftover
            yield Finding(
                "DL004",
                f"{key!r} is not a field of {kind} but a near miss of {intended!r}{lookalikes},"
                f" which is also set: this leftover is ignored (transformers keeps unknown keys"
                f" without complaint) and {intended!r} takes effect. Remove whichever is wrong.",
                pointer,
            )
            continue
        yield Finding(
            "DL004",
            f"{key!r} is not a field of {kind}; did you mean {intended!r}{lookalikes}?"
            " transformers keeps unknown keys without complaint, so this value is ignored and the"
            " default is used.",
            pointer,
            fix=PlannedFix(
                Applicability.UNSAFE,
                f"rename {key!r} to {intended!r} (the value then takes effect)",
                key_renames=((pointer, intended),),
            ),
        )


@functools.cache
def _known_words() -> frozenset[str]:
    return frozenset(word for field in _known_anywhere() for word in field.split("_"))


def _misspelt_word(key: str) -> bool:
    """Whether a word of ``key`` is in no known field name (``hiden`` in ``num_hiden_layers``):
    with the resembled field set too, only a misspelt word says the key is a leftover typo."""
    return any(word not in _known_words() for word in key.split("_"))


def _lookalikes(key: str, field: str) -> str:
    """`` (U+0435 CYRILLIC SMALL LETTER IE where it has 'e')`` for characters outside ASCII
    that stand where the field has another: such keys look identical on screen."""
    import unicodedata

    if key.isascii() or len(key) != len(field):
        strange = [c for c in key if not c.isascii()]
        if not strange:
            return ""
        names = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, '?')}" for c in strange)
        return f" (the key contains {names})"
    swaps = [
        f"U+{ord(ours):04X} {unicodedata.name(ours, '?')} where it has {theirs!r}"
        for ours, theirs in zip(key, field, strict=True)
        if ours != theirs and not ours.isascii()
    ]
    return f" (the key has {'; '.join(swaps)})" if swaps else ""
