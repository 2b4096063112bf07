"""Legacy list and dict keys a config class folds into its fields, folded the same way.

Some released checkpoints predate the fields their config class now has, and the class maps
the old spelling in ``__post_init__`` (issue 19: "legacy keys are mapped the way the config
class maps them"):

- DeepSeek-V4 (``DeepseekV4Config``): the per-layer ``compress_ratios`` ints become
  ``layer_types`` (0: ``sliding_attention``, 4: ``compressed_sparse_attention``, 128:
  ``heavily_compressed_attention``; a stated ``layer_types`` wins; the list is cut to
  ``num_hidden_layers``), and ``compress_rate_csa`` / ``compress_rate_hca`` override the
  ``compress_rates`` entry of their layer type (default 4 and 128);
- Kimi-Linear (``KimiLinearConfig``): the checkpoint's ``linear_attn_config`` dict sets
  ``linear_head_dim`` (``head_dim``), ``linear_num_heads`` (``num_heads``) and
  ``linear_conv_kernel_dim`` (``short_conv_kernel_size``) over the stated fields, and its
  1-indexed ``full_attn_layers`` / ``kda_layers`` become ``layer_types`` when none is stated.
- LFM2 (``Lfm2Config``): the 0-indexed ``full_attn_idxs`` become ``layer_types`` when none is
  stated (``full_attention`` at those layers, ``conv`` at the others), in a config of its own
  or in a composite's ``text_config`` (LFM2-VL);
- Nemotron-H (``NemotronHConfig``): the pattern strings ``hybrid_override_pattern`` and
  ``mtp_hybrid_override_pattern`` (``M`` Mamba, ``E`` MoE, ``*`` attention, ``-`` MLP) become
  ``layers_block_type`` / ``mtp_layers_block_type`` where those are not stated; the class
  takes its layer count from the plan, whatever ``num_hidden_layers`` says;
- every config class (``PreTrainedConfig.__post_init__``, ``remap_legacy_layer_types``): the
  legacy layer kinds of ``layer_types`` and ``mtp_layer_types`` take their current names
  (``mamba``: ``linear_attention``, ``attention``: ``full_attention``, the sparse-indexer names:
  ``indexed_attention``), at the top level and in each sub-config (Granite-4's plans). Only
  the shape templates read them so (:func:`remapped_kinds`): the hand recipes know the legacy
  names themselves.

Folding them once, where a config is read (:class:`~dimlint.memory.config_view.Cfg`, the shape
templates), makes the parameter count, the KV cache and the template's domain guards see the
layers the class builds: the template judges the folded ``layer_types`` as a stated per-layer
plan, and a ``compress_rates`` other than the class default stays stated, outside what it
learned. A legacy value the class itself would reject (a ratio it has no layer type for, a layer
listed by neither Kimi list) is left as written, so the template refuses it as a legacy key.
"""

from __future__ import annotations

from typing import Any

from dimlint.config import architectures

#: ``_COMPRESS_RATIO_TO_LAYER_TYPE`` of transformers' DeepSeek-V4 configuration.
COMPRESS_RATIO_TYPES = {
    0: "sliding_attention",
    4: "compressed_sparse_attention",
    128: "heavily_compressed_attention",
}
#: ``DeepseekV4Config.default_compress_rates``.
DEFAULT_COMPRESS_RATES = {"compressed_sparse_attention": 4, "heavily_compressed_attention": 128}
#: ``_LEGACY_LAYER_TYPE_REMAP`` of transformers' ``configuration_utils``, which every config
#: class applies to the plans of :data:`_PLAN_KEYS` after ``__post_init__``.
LEGACY_KINDS = {
    "mamba": "linear_attention",
    "attention": "full_attention",
    "deepseek_sparse_attention": "indexed_attention",
    "qwen_sparse_attention": "indexed_attention",
}
_PLAN_KEYS = ("layer_types", "mtp_layer_types", "layers_block_type", "mtp_layers_block_type")
#: ``NemotronHConfig._pattern_to_list``.
_NEMOTRON_PATTERN = {"M": "linear_attention", "E": "moe", "*": "full_attention", "-": "mlp"}
_NEMOTRON_PLANS = {
    "hybrid_override_pattern": "layers_block_type",
    "mtp_hybrid_override_pattern": "mtp_layers_block_type",
}
#: The most layers a legacy list is expanded to (a hostile count stays as written).
_MAX_LAYERS = 4096
#: Kimi-Linear's ``linear_attn_config`` keys and the fields they set.
_KIMI_LINEAR_FIELDS = {
    "head_dim": "linear_head_dim",
    "num_heads": "linear_num_heads",
    "short_conv_kernel_size": "linear_conv_kernel_dim",
}


def folded(raw: dict[str, Any], model_type: str) -> dict[str, Any]:
    """``raw`` with the legacy keys of ``model_type``'s config class folded into the fields it
    builds from them (``raw`` itself when there are none)."""
    if model_type == "deepseek_v4":
        return _deepseek_v4(raw)
    if model_type == "kimi_linear":
        return _kimi_linear(raw)
    if model_type == "lfm2":
        return _lfm2(raw)
    if model_type == "nemotron_h":
        return _nemotron_h(raw)
    text = raw.get("text_config")
    if isinstance(text, dict) and text.get("model_type") == "lfm2":
        folded_text = _lfm2(text)
        return raw if folded_text is text else {**raw, "text_config": folded_text}
    return raw


def remapped_kinds(raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` with its plans' legacy kind names (:data:`LEGACY_KINDS`) renamed, in itself and
    in each sub-config it states (``raw`` itself when none is), as the config class reads them:
    the shape templates match a plan's kinds against those their builds learned (the hand
    recipes read the legacy names themselves)."""
    read = raw
    for key in _PLAN_KEYS:
        plan = raw.get(key)
        if isinstance(plan, list) and any(_legacy_kind(item) for item in plan):
            read = dict(read) if read is raw else read
            read[key] = [
                LEGACY_KINDS.get(item, item) if _legacy_kind(item) else item for item in plan
            ]
    for key, value in raw.items():
        if isinstance(value, dict) and any(
            isinstance(value.get(name), list) for name in _PLAN_KEYS
        ):
            renamed = remapped_kinds(value)
            if renamed is not value:
                read = dict(read) if read is raw else read
                read[key] = renamed
    return read


def _legacy_kind(item: object) -> bool:
    return isinstance(item, str) and item in LEGACY_KINDS


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _layers(raw: dict[str, Any], model_type: str) -> int | None:
    stated = raw.get("num_hidden_layers")
    if isinstance(stated, int) and not isinstance(stated, bool):
        return stated
    record = architectures.lookup(model_type)
    default = record.defaults.get("num_hidden_layers") if record is not None else None
    return default if isinstance(default, int) and not isinstance(default, bool) else None


def _deepseek_v4(raw: dict[str, Any]) -> dict[str, Any]:
    if not any(key in raw for key in ("compress_ratios", "compress_rate_csa", "compress_rate_hca")):
        return raw
    read = dict(raw)
    ratios = raw.get("compress_ratios")
    layers = _layers(raw, "deepseek_v4")
    if raw.get("layer_types") is not None:
        read.pop("compress_ratios", None)  # an explicit plan wins over the legacy one
    elif isinstance(ratios, list) and layers is not None and len(ratios) >= layers:
        kinds = [COMPRESS_RATIO_TYPES.get(ratio) if _int(ratio) else None for ratio in ratios]
        if all(kind is not None for kind in kinds):
            read["layer_types"] = kinds[:layers]
            del read["compress_ratios"]
    stated = raw.get("compress_rates")
    rates = dict(stated) if isinstance(stated, dict) else dict(DEFAULT_COMPRESS_RATES)
    for key, kind in (("compress_rate_csa", "compressed_sparse_attention"),
                      ("compress_rate_hca", "heavily_compressed_attention")):  # fmt: skip
        value = read.pop(key, None)
        if value is not None:
            rates[kind] = value
    if rates == DEFAULT_COMPRESS_RATES:
        read.pop("compress_rates", None)  # the class's own value: nothing stated
    else:
        read["compress_rates"] = rates
    return read


def _kimi_linear(raw: dict[str, Any]) -> dict[str, Any]:
    linear = raw.get("linear_attn_config")
    if not isinstance(linear, dict):
        return raw
    read = dict(raw)
    for key, field in _KIMI_LINEAR_FIELDS.items():
        if key in linear:
            read[field] = linear[key]
    layers = _layers(raw, "kimi_linear")
    full, kda = linear.get("full_attn_layers"), linear.get("kda_layers")
    if raw.get("layer_types") is None and isinstance(full, list) and isinstance(kda, list):
        kinds = _kimi_layer_types(full, kda, layers)
        if kinds is None:
            return raw  # the class would fail on it: left as written (refused as legacy)
        read["layer_types"] = kinds
    del read["linear_attn_config"]
    return read


def _kimi_layer_types(full: list[Any], kda: list[Any], layers: int | None) -> list[str] | None:
    """``layer_types`` from Kimi's 1-indexed layer lists, or None when they do not name every
    layer exactly within ``layers``."""
    if layers is None or layers != len(full) + len(kda):
        return None  # some layer unnamed or named twice (and no list as long as a hostile count)
    kinds: list[str | None] = [None] * layers
    for numbers, kind in ((full, "full_attention"), (kda, "linear_attention")):
        for number in numbers:
            if not _int(number) or not 1 <= number <= layers:
                return None
            kinds[number - 1] = kind
    if any(kind is None for kind in kinds):
        return None
    return [str(kind) for kind in kinds]


def _lfm2(raw: dict[str, Any]) -> dict[str, Any]:
    """``Lfm2Config``'s plan from ``full_attn_idxs`` where no ``layer_types`` is stated."""
    indices = raw.get("full_attn_idxs")
    layers = _layers(raw, "lfm2")
    if raw.get("layer_types") is not None or not isinstance(indices, list) or layers is None:
        return raw
    if not all(_int(index) for index in indices) or layers > _MAX_LAYERS:
        return raw  # the class would fail on it, or a hostile count: left as written
    read = dict(raw)
    chosen = set(indices)
    read["layer_types"] = ["full_attention" if i in chosen else "conv" for i in range(layers)]
    del read["full_attn_idxs"]
    return read


def _nemotron_h(raw: dict[str, Any]) -> dict[str, Any]:
    """``NemotronHConfig``'s plans from their legacy pattern strings."""
    read = raw
    for key, field in _NEMOTRON_PLANS.items():
        pattern = raw.get(key)
        if not isinstance(pattern, str) or len(pattern) > _MAX_LAYERS:
            continue
        if any(char not in _NEMOTRON_PATTERN for char in pattern):
            continue  # the class would fail on it: left as written (refused as legacy)
        read = dict(read) if read is raw else read
        if raw.get(field) is None:
            read[field] = [_NEMOTRON_PATTERN[char] for char in pattern]
        del read[key]
    plan = read.get("layers_block_type")
    if isinstance(plan, list) and read.get("num_hidden_layers") != len(plan):
        read = dict(read) if read is raw else read
        read["num_hidden_layers"] = len(plan)  # the class's count is its plan's length
    return read
