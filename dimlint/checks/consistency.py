"""Cross-field consistency: windows, layer types, token ids, rope scaling (DL601–DL604)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dimlint.checks.registry import Finding, rule
from dimlint.config.pointers import escape_pointer_token
from dimlint.config.spec import ModelSpec
from dimlint.diagnostics import Severity

SLIDING_LAYER_TYPES = frozenset({"sliding_attention", "chunked_attention", "local_attention"})
#: Other names of the window: Llama 4's chunk size, ModernBERT's local window.
WINDOW_KEYS = ("attention_chunk_size", "local_attention", "sliding_window_size")


@rule(
    "DL601",
    "sliding-window",
    Severity.WARNING,
    "Sliding-window settings are inconsistent with the positions or the layer types.",
)
def check_sliding_window(spec: ModelSpec) -> Iterator[Finding]:
    # A window larger than the context is how Phi-3 and others spell "no sliding window", so
    # only contradictions that break the attention mask are reported.
    window = spec.sliding_window
    sliding_layers = 0
    if spec.layer_types is not None:
        sliding_layers = sum(1 for kind in spec.layer_types.value if kind in SLIDING_LAYER_TYPES)
    other_window = any(spec.raw.get(key) for key in WINDOW_KEYS)
    # An absent window is "not set" only where the class's defaults are known: an unidentified
    # class (transformers' T5Gemma2 test builds its text config through
    # ``self.text_config_class(layer_types=…)``, whose class defaults the window to 4096) may
    # give it one.
    if (
        sliding_layers
        and (window.value == 0 if window is not None else spec.known_type)
        and not other_window
        and "sliding_window" not in spec.invalid
    ):
        assert spec.layer_types is not None
        yield Finding(
            "DL601",
            f"layer_types has {sliding_layers} sliding-window layers but sliding_window is not"
            " set: those layers have no window to slide (the attention mask cannot be built)."
            " Set sliding_window, or make those layers full_attention.",
            spec.layer_types.pointer,
        )
        return
    flag = spec.use_sliding_window
    if (
        flag is not None
        and flag.in_file
        and flag.value
        and window is None
        and "sliding_window" not in spec.invalid
    ):
        yield Finding(
            "DL601",
            "use_sliding_window is true but sliding_window is not set: the flag turns on a"
            " window of unknown size (attention implementations then ignore it or fail)."
            " Set sliding_window, or set use_sliding_window to false.",
            flag.pointer,
        )


@rule(
    "DL602",
    "layer-types-length",
    Severity.ERROR,
    "layer_types does not have one entry per layer.",
)
def check_layer_types(spec: ModelSpec) -> Iterator[Finding]:
    if spec.layer_types is None or spec.layers is None:
        return
    kinds = spec.layer_types.value
    if not any(isinstance(kind, str) and kind.endswith("attention") for kind in kinds):
        return  # not per-layer attention types (PP-DocLayout lists backbone block kinds)
    count = len(kinds)
    if count == spec.layers.value:
        return
    if count > spec.layers.value:
        effect = "the extra entries are ignored and the config is ambiguous"
    else:
        effect = "the last layers have no type (IndexError)"
    yield Finding(
        "DL602",
        f"layer_types has {count} entries but {spec.layers.key} is {spec.layers.value}: each"
        f" decoder layer looks up its attention type by index, so {effect}."
        f" Give exactly {spec.layers.value} entries.",
        spec.layer_types.pointer,
    )


#: Model types whose token embedding has rows past ``vocab_size``: MusicGen's decoders build
#: ``nn.Embedding(config.vocab_size + 1, hidden_size)`` per codebook (``modeling_musicgen.py``,
#: ``modeling_musicgen_melody.py``): the extra row is the pad and BOS id, 2048 beside codebooks
#: of 2048 entries, and their config classes accept ids up to ``vocab_size`` itself
#: (``validate_token_ids``, "MusicGen init an embedding layer with `vocab_size+1`").
EXTRA_EMBEDDING_ROWS = {"musicgen_decoder": 1, "musicgen_melody_decoder": 1}


@rule(
    "DL603",
    "token-id-range",
    Severity.WARNING,
    "A special token id is outside the vocabulary.",
)
def check_token_ids(spec: ModelSpec) -> Iterator[Finding]:
    if spec.vocab is None:
        return
    vocab = spec.vocab.value
    rows = vocab + EXTRA_EMBEDDING_ROWS.get(spec.model_type or "", 0)
    for token in spec.token_ids:
        if token.value < 0:
            yield Finding(
                "DL603",
                f"{token.key} {token.value} is negative: an id indexes the embedding, and"
                f" Python's negative indexing makes {token.value} silently mean row"
                f" {vocab + token.value} (nn.Embedding(padding_idx={token.value}) freezes that"
                " row's gradient; generation never matches it). Use null for no such token, or"
                " the token's real id.",
                token.pointer,
            )
        elif token.value >= rows:
            yield Finding(
                "DL603",
                f"{token.key} {token.value} is ≥ {spec.vocab.key} {vocab}: the embedding has no"
                f" row {token.value}, so generating or feeding this token is an IndexError. Raise"
                f" {spec.vocab.key} to at least {token.value + 1} (padded: "
                f"{-(-(token.value + 1) // 64) * 64}) or fix the id.",
                token.pointer,
            )


_NEEDS_FACTOR = frozenset({"linear", "dynamic", "yarn", "llama3"})
_LLAMA3_KEYS = ("low_freq_factor", "high_freq_factor", "original_max_position_embeddings")


def _read_by_transformers(spec: ModelSpec) -> bool:
    """Whether the config is one transformers builds: it names its model type or
    architectures (a bare table of sizes is some other framework's)."""
    return spec.model_type is not None or "architectures" in spec.raw


def _number(value: Any) -> float | None:
    """A number read as a float (None past a float's range: 10**400 is no rope factor)."""
    if isinstance(value, float):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and -(2**63) < value < 2**63:
        return float(value)
    return None


@rule(
    "DL604",
    "rope-scaling",
    Severity.WARNING,
    "rope scaling parameters are incomplete or contradictory.",
)
def check_rope_scaling(spec: ModelSpec) -> Iterator[Finding]:
    if spec.rope_scaling is None:
        return
    rope = spec.rope_scaling.value
    base = spec.rope_scaling.pointer or ""
    name = spec.rope_scaling.key

    def at(key: str) -> str:
        return f"{base}/{escape_pointer_token(key)}"

    kind = rope.get("rope_type", rope.get("type"))
    if kind is None:
        # transformers' requirement, so only on a config transformers reads (a model type, or
        # its architectures): gpt-fast's, torchtune's or Meta's own tables scale by the factor
        # their code applies and have no rope_type to name
        if "factor" in rope and _read_by_transformers(spec):
            yield Finding(
                "DL604",
                f"{name} has a factor but no rope_type (or type): transformers cannot tell"
                " linear, dynamic, yarn or llama3 scaling apart and rejects it. Add rope_type.",
                base,
            )
        return
    if not isinstance(kind, str):
        return
    factor = _number(rope.get("factor"))
    if kind in _NEEDS_FACTOR and "factor" not in rope:
        yield Finding(
            "DL604",
            f"{name} uses {kind} scaling without a factor: the scaling has nothing to scale by."
            " Add factor (context extension ratio, e.g. 8.0).",
            base,
        )
    elif kind in _NEEDS_FACTOR and factor is not None and factor < 1:
        yield Finding(
            "DL604",
            f"{name} factor {factor:g} is below 1: {kind} scaling extends the context by this"
            " factor, so a value below 1 shrinks it. Use a factor ≥ 1.",
            at("factor"),
        )
    if kind in ("longrope", "su"):
        missing = [key for key in ("short_factor", "long_factor") if key not in rope]
        if missing:
            yield Finding(
                "DL604",
                f"{name} uses {kind} scaling without {' and '.join(missing)}: longrope rescales"
                " every rotary frequency by its own factor (short_factor within the original"
                " context, long_factor beyond it), and transformers refuses a longrope config"
                " without both lists. Add them (one factor per rotary frequency: head dim ×"
                " partial_rotary_factor / 2 entries).",
                base,
            )
    if kind == "llama3":
        missing = [key for key in _LLAMA3_KEYS if key not in rope]
        if missing:
            yield Finding(
                "DL604",
                f"{name} uses llama3 scaling without {', '.join(missing)}: the llama3 rule blends"
                " low- and high-frequency bands and needs all three. Add them (Llama-3.1: 1.0,"
                " 4.0, 8192).",
                base,
            )
        else:
            low, high = _number(rope["low_freq_factor"]), _number(rope["high_freq_factor"])
            # Equal factors are legal (Llama-4-Scout: 1.0 and 1.0): the band between them is
            # empty, so the smoothing that divides by high - low never applies.
            if low is not None and high is not None and low > high:
                yield Finding(
                    "DL604",
                    f"{name} low_freq_factor {low:g} is above high_freq_factor {high:g}: the"
                    " llama3 band edges are swapped, so the wrong frequencies are scaled.",
                    at("low_freq_factor"),
                )
    yield from _check_stray_keys(rope, kind, name, base)
    yield from _check_rope_lengths(spec, rope, kind, at)


#: The keys transformers' rope validation accepts per rope type (``modeling_rope_utils``
#: ``_validate_<type>_rope_parameters``: required and optional keys; ``type`` and
#: ``partial_rotary_factor`` are accepted for every type).
ROPE_KEYS: dict[str, frozenset[str]] = {
    "default": frozenset({"rope_theta"}),
    "linear": frozenset({"factor", "rope_theta"}),
    "dynamic": frozenset({"factor", "rope_theta"}),
    "yarn": frozenset(
        {
            "factor",
            "original_max_position_embeddings",
            "rope_theta",
            "attention_factor",
            "beta_fast",
            "beta_slow",
            "mscale",
            "mscale_all_dim",
            "truncate",
        }
    ),
    "longrope": frozenset(
        {
            "short_factor",
            "long_factor",
            "original_max_position_embeddings",
            "rope_theta",
            "attention_factor",
            "factor",
        }
    ),
    "llama3": frozenset(
        {
            "factor",
            "original_max_position_embeddings",
            "low_freq_factor",
            "high_freq_factor",
            "rope_theta",
        }
    ),
}
_ALWAYS = frozenset({"rope_type", "type", "partial_rotary_factor"})


def _check_stray_keys(rope: dict[str, Any], kind: str, name: str, base: str) -> Iterator[Finding]:
    """Keys the rope type ignores that belong to exactly one other type: the scaling the user
    most likely meant (``linear`` with ``beta_fast`` is YaRN written with the wrong type).
    transformers only logs "Unrecognized keys" and runs the stated type, dropping them. Keys no
    standard type reads (``mrope_section``, model-specific extras) are left alone."""
    accepted = ROPE_KEYS.get("longrope" if kind == "su" else kind)
    if accepted is None:
        return
    stray = sorted(key for key in rope if key not in accepted and key not in _ALWAYS)
    if not stray:
        return
    meant = [
        other
        for other, keys in ROPE_KEYS.items()
        if other != kind and all(key in keys for key in stray)
    ]
    if len(meant) != 1:
        return
    listed = ", ".join(stray)
    yield Finding(
        "DL604",
        f"{name} uses {kind} scaling but also states {listed}, which {kind} ignores and"
        f" {meant[0]} reads: did you mean rope_type {meant[0]}? transformers warns"
        f" 'Unrecognized keys' and runs plain {kind} scaling without them.",
        base,
    )


def _check_rope_lengths(
    spec: ModelSpec, rope: dict[str, Any], kind: str, at: Any
) -> Iterator[Finding]:
    """longrope factor lists and mrope sections must match the rotary half-width."""
    head_width = spec.effective_head_dim
    fraction = spec.partial_rotary_factor.value if spec.partial_rotary_factor else 1.0
    if spec.is_mla and spec.qk_rope_head_dim is not None:
        head_width, fraction = spec.qk_rope_head_dim.value, 1.0  # only the decoupled part rotates
    if head_width is None:
        return
    half = int(head_width * fraction) // 2
    if kind in ("longrope", "su"):
        for key in ("short_factor", "long_factor"):
            factors = rope.get(key)
            if isinstance(factors, list) and len(factors) != half:
                yield Finding(
                    "DL604",
                    f"{key} has {len(factors)} entries but the rotary half-width is {half}"
                    f" (head dim {head_width} × {fraction:g} / 2): longrope scales each rotary"
                    " frequency by its own factor, so the lengths must match.",
                    at(key),
                )
    section = rope.get("mrope_section")
    # interleaved multimodal rope (Qwen3-VL's ``mrope_interleaved``) does not split the
    # frequencies into consecutive sections: the H and W sections take every third frequency
    # from offsets 1 and 2 up to 3 x their size and T keeps the rest, so no sum is required
    interleaved = rope.get("mrope_interleaved") is True
    if isinstance(section, list) and all(isinstance(v, int) for v in section) and not interleaved:
        total = sum(section)
        if total != half:
            yield Finding(
                "DL604",
                f"mrope_section sums to {total} but the rotary half-width is {half}"
                f" ({_half_width(head_width, fraction)}): multimodal rope splits the rotary"
                " frequencies into these sections, so they must add up to it.",
                at("mrope_section"),
            )


def _half_width(head_width: int, fraction: float) -> str:
    """How the rotary half-width is computed, for a message."""
    if fraction == 1:
        return f"head dim {head_width} / 2"
    return f"head dim {head_width} × {fraction:g} / 2"
