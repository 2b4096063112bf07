"""Which tensors a quantized checkpoint stores quantized, and which at their original dtype.

A ``quantization_config`` quantizes the *linear* layers it targets and leaves the rest as they
were: embeddings, the LM head, norms, biases and MoE routers (not ``nn.Linear`` in transformers'
MoE blocks, and excluded by every released recipe), plus the modules it lists as skipped —

* ``modules_to_not_convert`` (transformers' FP8, bitsandbytes, AWQ…) and ``ignored_layers``
  (vLLM's FP8 config): module names or prefixes (``lm_head``, ``model.layers.0.mlp``);
* ``ignore`` (compressed-tensors): names, or regexes written ``re:…`` (``re:.*mlp.gate$``), and
  ``config_groups.*.targets``: only modules a group targets (``Linear``, or a name/regex) are
  quantized, each with its group's format;
* ``exclude_modules`` (NVIDIA ModelOpt).

A name matches a module when it is the module, a dotted prefix of it, or a dotted suffix of it
(``lm_head`` matches ``lm_head``; ``mlp`` matches ``model.layers.3.mlp.down_proj``) — the union
of the rules transformers (``should_convert_module``) and vLLM (``is_layer_skipped``) apply.

The tensors come from :func:`dimlint.memory.checkpoint.expected_tensors.plan_for` (checkpoint names
and shapes, summing to the parameter count); FP8 block scales are counted per tensor, as
``ceil(rows/b0)·ceil(cols/b1)`` float32 values. Families without a tensor plan fall back to
"embeddings and head kept, everything else quantized" (:func:`dimlint.memory.weights.weight_bytes`).
"""

from __future__ import annotations

import math
import re
from typing import Any

from dimlint.config.spec import ModelSpec
from dimlint.memory.dtypes import ALIASES
from dimlint.records import Record

#: Keys that list modules a quantization config leaves unquantized, by the tool that writes them.
SKIP_KEYS = ("modules_to_not_convert", "ignored_layers", "ignore", "exclude_modules")
#: The dtypes unquantized tensors can be stored in, by ``torch_dtype`` name.
STORED_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}


class QuantizedLayout(Record):
    """Bytes of the tensors a tensor plan covers, split by how they are stored."""

    #: Parameters stored quantized, and their bytes (packed values plus scales/zero points).
    quantized_params: int
    quantized_bytes: int
    #: Parameters stored at ``kept_dtype`` (embeddings, head, norms, routers, skipped modules).
    kept_params: int
    kept_bytes: int
    kept_dtype: str
    #: Parameters the plan covers (the language model); the rest of the model is not in it.
    covered: int

    @property
    def bytes(self) -> int:
        return self.quantized_bytes + self.kept_bytes


def kept_dtype(raw: dict[str, Any]) -> str:
    """The dtype unquantized tensors are stored in: the config's ``torch_dtype``, else bf16."""
    for key in ("torch_dtype", "dtype"):
        value = raw.get(key)
        if isinstance(value, str):
            name = ALIASES.get(value.lower(), value.lower())
            if name in STORED_BYTES:
                return name
    return "bf16"


def skipped_modules(quantization: dict[str, Any]) -> list[str]:
    """Every module name or ``re:`` pattern the config lists as left unquantized."""
    found: list[str] = []
    for key in SKIP_KEYS:
        value = quantization.get(key)
        if isinstance(value, list):
            found.extend(item for item in value if isinstance(item, str) and item)
    return found


def matches(pattern: str, module: str) -> bool:
    """Whether ``pattern`` (a name or ``re:`` regex) names ``module`` (module doc)."""
    if pattern.startswith("re:"):
        try:
            return re.match(pattern[3:], module) is not None
        except re.error:
            return False
    return f".{pattern}." in f".{module}."


def _groups(quantization: dict[str, Any]) -> list[tuple[list[str], dict[str, Any]]]:
    """compressed-tensors' (targets, weights scheme) per group; [] for other methods."""
    groups = quantization.get("config_groups")
    if not isinstance(groups, dict):
        return []
    found = []
    for group in groups.values():
        if not isinstance(group, dict) or not isinstance(group.get("weights"), dict):
            continue
        targets = group.get("targets")
        names = [t for t in targets if isinstance(t, str)] if isinstance(targets, list) else []
        found.append((names or ["Linear"], group["weights"]))
    return found


def _group_bytes(weights: dict[str, Any], rows: int, cols: int) -> float:
    """Bytes of one ``rows × cols`` weight under a compressed-tensors weights scheme."""
    stated = weights.get("num_bits")
    bits = 8
    if isinstance(stated, int) and not isinstance(stated, bool) and 0 < stated <= 32:
        bits = stated
    size = rows * cols
    strategy = str(weights.get("strategy") or "tensor").lower()
    symmetric = weights.get("symmetric", True) is not False
    per_scale = 2 + (0 if symmetric else bits / 8)  # a 16-bit scale (+ a packed zero point)
    block = weights.get("block_structure")
    group = weights.get("group_size")
    sizes = _block(block) if strategy == "block" else None
    if sizes is not None:
        scales = math.ceil(rows / sizes[0]) * math.ceil(cols / sizes[1])
    elif strategy in ("group", "tensor_group") and isinstance(group, int) and group > 0:
        scales = rows * math.ceil(cols / group)
    elif strategy == "channel":
        scales = rows
    else:
        scales = 1
    return size * bits / 8 + scales * per_scale


def _block(value: Any) -> tuple[int, int] | None:
    """``value`` as a ``(rows, cols)`` block of positive integers, or None."""
    if not isinstance(value, list) or len(value) != 2:
        return None
    if not all(isinstance(b, int) and not isinstance(b, bool) and b > 0 for b in value):
        return None
    return int(value[0]), int(value[1])


def _method_bytes(quantization: dict[str, Any], per_weight: float, rows: int, cols: int) -> float:
    """Bytes of one ``rows × cols`` weight under a method other than compressed-tensors."""
    block = quantization.get("weight_block_size")
    method = str(quantization.get("quant_method", "")).lower()
    sizes = _block(block) if "fp8" in method else None
    if sizes is not None:
        return rows * cols + 4 * math.ceil(rows / sizes[0]) * math.ceil(cols / sizes[1])
    return rows * cols * per_weight


def quantized_layout(
    spec: ModelSpec, quantization: dict[str, Any], per_weight: float
) -> QuantizedLayout | None:
    """How the checkpoint of ``spec`` stores its tensors under ``quantization`` (module doc);
    None when the family has no tensor plan. Remembered per config: ``plan`` and DL501 ask
    for the same model many times while they search for what fits."""
    key = (id(spec.raw), id(quantization), per_weight)
    cached = _LAYOUTS.get(key)
    if cached is not None and cached[0] is spec.raw and cached[1] is quantization:
        return cached[2]
    layout = _layout(spec, quantization, per_weight)
    if len(_LAYOUTS) > 16:
        _LAYOUTS.clear()
    _LAYOUTS[key] = (spec.raw, quantization, layout)
    return layout


def _layout(
    spec: ModelSpec, quantization: dict[str, Any], per_weight: float
) -> QuantizedLayout | None:
    plan = tensor_plan(spec)
    if plan is None:
        return None
    names = plan.names
    skipped = skipped_modules(quantization)
    groups = _groups(quantization)
    kept = kept_dtype(spec.raw)
    unit = STORED_BYTES[kept]
    env = plan.env
    never = {names.embed, names.positions, names.head} - {""}
    routers = tuple(f".{name}" for name in (names.router, names.shared_gate) if name)
    quantized_params = kept_params = 0
    quantized_bytes = 0.0
    for tensor in plan.tensors:
        if not (tensor.present and tensor.parameter):
            continue
        shape = [axis.value(env) for axis in tensor.shape]
        size = math.prod(shape)
        module = tensor.name.rsplit(".", 1)[0]
        stored = None
        quantizable = len(shape) >= 2 and module not in never and not module.endswith(routers)
        if quantizable and not any(matches(pattern, module) for pattern in skipped):
            stored = _stored_bytes(quantization, groups, per_weight, module, shape)
        if stored is None:
            kept_params += size
        else:
            quantized_params += size
            quantized_bytes += stored
    return QuantizedLayout(
        quantized_params,
        math.ceil(quantized_bytes),
        kept_params,
        kept_params * unit,
        kept,
        quantized_params + kept_params,
    )


def _stored_bytes(
    quantization: dict[str, Any],
    groups: list[tuple[list[str], dict[str, Any]]],
    per_weight: float,
    module: str,
    shape: list[int],
) -> float | None:
    """Bytes of a quantizable weight, or None when no compressed-tensors group targets it."""
    rows, cols = shape[-2] * math.prod(shape[:-2]), shape[-1]
    if not groups:
        return _method_bytes(quantization, per_weight, rows, cols)
    for targets, weights in groups:
        if any(target == "Linear" or matches(target, module) for target in targets):
            return _group_bytes(weights, rows, cols)
    return None


#: Plans and layouts by the identity of the config they were built for (the config is kept
#: beside each to check that the identity was not reused).
_PLANS: dict[int, tuple[dict[str, Any], Any]] = {}
_LAYOUTS: dict[
    tuple[int, int, float], tuple[dict[str, Any], dict[str, Any], QuantizedLayout | None]
] = {}


def tensor_plan(spec: ModelSpec) -> Any:
    """The tensor plan of ``spec`` as if unquantized (names and shapes do not change); only a
    document's top level (a sub-config's checkpoint names carry its parent's prefixes)."""
    if spec.pointer:
        return None
    cached = _PLANS.get(id(spec.raw))
    if cached is not None and cached[0] is spec.raw:
        return cached[1]
    from dimlint.config.normalize import specs_for_document
    from dimlint.memory.checkpoint.expected_tensors import plan_for
    from dimlint.memory.checkpoint.stored_extras import unquantized

    plain = unquantized(spec.raw)
    plan = None
    for candidate in specs_for_document(spec.path, plain):
        if not candidate.pointer:
            plan = plan_for(candidate)
            break
    if len(_PLANS) > 16:
        _PLANS.clear()
    _PLANS[id(spec.raw)] = (spec.raw, plan)
    return plan
