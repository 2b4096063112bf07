"""Where a training YAML keeps its model, and what else in the file describes it.

Training configs put the model in a section of a larger file, spelled in the framework's dialect:

* HF-style keys anywhere (nanotron's ``model.model_config``, axolotl's
  ``overrides_of_model_config``);
* gpt-neox at the top level: ``hidden-size``/``hidden_size``, ``num-attention-heads``,
  ``num-layers``; parallel sizes ``model-parallel-size``, ``pipe-parallel-size``;
* Megatron-LM / NeMo at the top level, in ``language_model`` or ``model``: ``hidden_size``,
  ``ffn_hidden_size``, ``num_query_groups``, ``kv_channels``; ``tensor_model_parallel_size``,
  ``pipeline_model_parallel_size``, ``expert_model_parallel_size``, ``context_parallel_size``;
* OLMo's ``model``: ``d_model``, ``n_heads``, ``n_kv_heads``, ``mlp_hidden_size``/``mlp_ratio``;
* torchtune's ``model``: ``embed_dim``, ``num_heads``, ``num_kv_heads``, ``intermediate_dim``;
* lingua's ``model``: ``dim``, ``n_heads``, ``n_kv_heads``; ``distributed.tp_size``;
* nanotron's ``parallelism.tp``/``pp``.

A section is any mapping (up to a few levels deep) that states two of hidden size, heads and
layers, under any spelling the normalizer knows (a ``model_type`` alone is not enough: axolotl's
``model_type: AutoModelForCausalLM`` names a class, not a config). The parallel sizes found
anywhere in the same file become a deployment target of that config (a Megatron YAML with 12
heads and TP 8 cannot shard its heads: DL401).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from dimlint.config.normalize import has_dimensions
from dimlint.config.pointers import escape_pointer_token
from dimlint.records import Record

#: How deep parallel sizes are searched (nanotron's are at depth 2).
MAX_DEPTH = 4
#: How deep model sections are searched: Cerebras' Model Zoo nests a model five mappings down
#: (``dpr.trainer.init.model.encoder``) and keeps image encoders in lists of mappings
#: (``image_models: [{image_encoder: {hidden_size: …}}]``), each item a level.
SECTION_DEPTH = 7

#: Parallel sizes, by the target key they set: the keys frameworks spell them with.
PARALLEL_KEYS: dict[str, tuple[str, ...]] = {
    "tp": (
        "tensor_model_parallel_size",
        "model_parallel_size",
        "model-parallel-size",
        "tensor_parallel_size",
        "tensor_parallel_degree",
        "tensor_parallel_dim",
        "tp_size",
    ),
    "pp": (
        "pipeline_model_parallel_size",
        "pipe_parallel_size",
        "pipe-parallel-size",
        "pipeline_parallel_size",
        "pipeline_parallel_degree",
        "pp_size",
    ),
    "ep": ("expert_model_parallel_size", "expert_parallel_size", "ep_size"),
    "cp": ("context_parallel_size", "cp_size"),
}
#: A parallel degree above this is no layout anyone runs (the largest training runs use a few
#: tens of thousands of GPUs in all): ``tensor_model_parallel_size: 10**30`` is a typo or a
#: placeholder, not a target to judge heads and layers against.
MAX_PARALLEL = 1 << 16
#: nanotron's ``parallelism:`` section spells them ``tp``/``pp``.
SHORT_PARALLEL_SECTIONS = ("parallelism",)


class Section(Record):
    """One model config inside a YAML file; ``ancestors`` are the mappings enclosing it."""

    pointer: str
    obj: dict[str, Any]
    ancestors: tuple[dict[str, Any], ...]


class ParallelSize(Record):
    """A parallel degree the file states, and where."""

    key: str
    value: int
    pointer: str


def sections(value: Any) -> list[Section]:
    """The model configs of a YAML document, outermost first (a section's own sub-configs are
    the normalizer's business, so the walk does not descend into a section)."""
    found: list[Section] = []
    pending: list[tuple[str, Any, tuple[dict[str, Any], ...], int]] = [("", value, (), 0)]
    while pending:
        pointer, node, ancestors, depth = pending.pop(0)
        if not isinstance(node, dict):
            continue
        if has_dimensions(node):
            found.append(Section(pointer, node, ancestors))
            continue
        if depth >= SECTION_DEPTH:
            continue
        for key, child in node.items():
            child_pointer = f"{pointer}/{escape_pointer_token(key)}"
            if isinstance(child, dict):
                pending.append((child_pointer, child, (*ancestors, node), depth + 1))
            elif isinstance(child, list):  # a list of model mappings (Cerebras' image encoders)
                pending.extend(
                    (f"{child_pointer}/{index}", item, (*ancestors, node), depth + 1)
                    for index, item in enumerate(child)
                    if isinstance(item, dict)
                )
    return found


def parallel_sizes(value: Any) -> dict[str, ParallelSize]:
    """The parallel degrees stated in the file (the first of each kind, outermost first)."""
    found: dict[str, ParallelSize] = {}
    for pointer, key, size, parent in _members(value):
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_PARALLEL:
            continue
        for kind, keys in PARALLEL_KEYS.items():
            if key in keys and kind not in found:
                found[kind] = ParallelSize(key, size, pointer)
        if parent in SHORT_PARALLEL_SECTIONS and key in ("tp", "pp") and key not in found:
            found[key] = ParallelSize(key, size, pointer)
    return found


#: Arguments of Megatron's checkpoint converters (``tools/checkpoint/convert.py``'s
#: ``--target-tensor-parallel-size``, forks' ``merge/split_*_partitions.py``'s
#: ``--target-pipeline-model-parallel-size``): the file converts a checkpoint, it trains nothing.
CONVERSION_KEYS = (
    "target_tensor_parallel_size",
    "target_pipeline_parallel_size",
    "target_tensor_model_parallel_size",
    "target_pipeline_model_parallel_size",
)


def conversion_key(value: Any) -> str | None:
    """The first checkpoint-conversion argument the document states (:data:`CONVERSION_KEYS`):
    the parallel sizes beside it are a source and a destination checkpoint's layouts, which the
    converter reshapes in one process, not a layout a run builds."""
    stated = first_stated(value, CONVERSION_KEYS)
    return next(iter(stated), None)


def first_stated(value: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    """The first value of each of ``keys`` anywhere in the document, outermost first (a
    training YAML states how its layers split over pipeline stages beside the parallel sizes,
    FlagScale's ``system:`` section, not beside the model's keys)."""
    found: dict[str, Any] = {}
    for _, key, child, _ in _members(value):
        if key in keys and key not in found:
            found[key] = child
    return found


def _members(value: Any) -> Iterator[tuple[str, str, Any, str]]:
    """(pointer, key, value, parent key) of every mapping member, breadth first."""
    pending: list[tuple[str, Any, str, int]] = [("", value, "", 0)]
    while pending:
        pointer, node, parent, depth = pending.pop(0)
        if not isinstance(node, dict):
            continue
        for key, child in node.items():
            child_pointer = f"{pointer}/{escape_pointer_token(key)}"
            yield child_pointer, key, child, parent
            if isinstance(child, dict) and depth < MAX_DEPTH:
                pending.append((child_pointer, child, key, depth + 1))


def top_level_model_type(value: Any) -> str | None:
    """lingua names its model family beside the section (``model_type: "hawk"``)."""
    if isinstance(value, dict):
        found = value.get("model_type")
        if isinstance(found, str):
            return found
    return None


#: OLMo's activations whose MLP is gated: ``mlp_hidden_size`` is then both branches together.
OLMO_GATED = frozenset({"swiglu", "geglu", "swiglu_fused"})


def olmo_ffn(obj: dict[str, Any]) -> tuple[str, int, bool] | None:
    """OLMo's MLP width: (key, per-branch width, gated) from ``mlp_hidden_size`` or ``mlp_ratio``.

    OLMo's ``mlp_hidden_size`` (default ``mlp_ratio × d_model``) is the output width of the fused
    up-and-gate projection; a SwiGLU block's inner width is half of it (OLMo-7B: 22016 → 11008).
    """
    if "d_model" not in obj:
        return None
    activation = obj.get("activation_type")
    gated = isinstance(activation, str) and activation.lower() in OLMO_GATED
    width = obj.get("mlp_hidden_size")
    key = "mlp_hidden_size"
    if not (isinstance(width, int) and not isinstance(width, bool) and width > 0):
        ratio, hidden = obj.get("mlp_ratio"), obj.get("d_model")
        if not isinstance(ratio, (int, float)) or isinstance(ratio, bool):
            return None
        if not (math.isfinite(ratio) and ratio > 0):  # OLMo's ``mlp_ratio: .inf``: DL003's
            return None
        if not isinstance(hidden, int) or isinstance(hidden, bool) or hidden <= 0:
            return None
        width, key = int(ratio * hidden), "mlp_ratio"
    return key, width // 2 if gated else width, gated
