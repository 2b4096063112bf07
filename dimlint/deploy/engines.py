"""Which tensor, pipeline, expert and context parallel sizes each engine accepts, and why not.

One table row per engine says how it splits a model; the ``*_refusals`` functions turn a
:class:`ModelSpec` and one parallel degree into the reasons the engine refuses it, each tagged
with the rule that reports it in ``check`` (DL401–DL407) and the config field to point at.
``dimlint plan`` calls the same functions for every degree up to ``--max-gpus``, so the two
commands cannot disagree.

Sources, read in each engine's code (the search index of public repositories; transformers from
the installed 5.24 sources):

* vLLM — ``config/model.py`` ``_verify_with_parallel_config``: "Total number of attention heads
  (n) must be divisible by tensor parallel size (tp)"; ``layers/linear.py`` ``QKVParallelLinear``:
  ``divide(kv, tp)`` when ``tp < kv``, else ``divide(tp, kv)`` (KV heads replicated);
  ``RowParallelLinear``/``MergedColumnParallelLinear``: ``divide(ffn, tp)``; GPTQ/AWQ
  ``create_weights``: "The input size is not aligned with the quantized weight shape" when
  ``(ffn/tp) % group_size``; fp8 block quantization ``validate_fp8_block_shape``: ``(ffn/tp) %
  block_k`` (row parallel) and ``% block_n`` (column parallel); ``vocab_parallel_embedding.py``:
  ``pad_vocab_size(vocab, 64)`` then ``divide(padded, tp)``; ``fused_moe/layer.py``: ``assert
  intermediate_size % tp_size == 0`` for TP-sharded experts, ``determine_expert_map`` spreads
  experts unevenly over EP ranks (only EPLB needs an even split); ``distributed/utils.py``
  ``get_pp_indices`` spreads uneven layer counts over pipeline stages.
* SGLang — the same linear, vocab and pipeline layers as vLLM; ``FusedMoE``: ``assert
  (num_experts - num_fused_shared_experts) % moe_ep_size == 0`` and ``intermediate_size %
  moe_tp_size == 0`` with ``moe_tp_size = tp // ep``.
* Megatron-LM — ``validate_args``: heads % tp; ``attention.py``: ``num_query_groups`` divided by
  tp, or (recent Megatron-Core) fewer groups than tp with each group replicated, so groups must be
  a multiple or a divisor of tp; ``ColumnParallelLinear``: ``divide(ffn, tp)``;
  ``get_num_layers_to_build``: "num_layers should be divisible by pipeline_model_parallel_size"
  (+1 per embedding/loss stage with ``account_for_*_in_pipeline_split``; uneven only with
  ``num_layers_in_first/last_pipeline_stage``); ``moe_layer.py``: ``num_moe_experts %
  expert_parallel_size == 0``; ``validate_args``: "seq-length should be a multiple of 2 *
  context-parallel-size"; the vocab is padded to ``make_vocab_size_divisible_by`` (128) × tp, so
  it never refuses a TP size.
* transformers native TP (``hf``) — ``distributed/tensor_parallel.py``: column shards may be
  uneven (so FFN and vocab widths do not matter), but KV heads are sharded without replication
  (``get_kv_heads_per_rank``; transformers #48307: TP 8 with 4 KV heads fails mid-forward);
  ``pipeline_parallel.py`` splits uneven layer counts; ``expert_parallel.py``: "Cannot evenly
  shard N experts across M expert-parallel ranks".
* DeepSpeed — MoE ``experts % ep``; Ulysses sequence parallelism ``_SeqAllToAll``: "Number of
  heads (n) must be divisible by the sequence parallel size (sp)". From DOMAIN.md and the
  DeepSpeed ``sequence/layer.py`` assertion.
"""

from __future__ import annotations

from typing import Any, Literal

from dimlint.config.spec import ModelSpec
from dimlint.deploy.targets import MAX_DEGREE as _MAX_DEGREE
from dimlint.records import Record

#: vLLM's and SGLang's ``DEFAULT_VOCAB_PADDING_SIZE``.
VLLM_VOCAB_PADDING = 64

ExpertSplit = Literal["tp_unless_ep", "tp_over_ep", "tp", "none"]


class Engine(Record):
    """How one engine splits a model over GPUs."""

    name: str
    label: str
    #: KV heads: replicated once tp exceeds them (vLLM, SGLang, Megatron) or strictly sharded.
    replicate_kv: bool
    #: FFN (and shared-expert) widths must divide by tp (Row/ColumnParallelLinear ``divide``).
    split_ffn: bool
    #: Pad the vocab to this multiple, then it must divide by tp; 0 when the engine never refuses.
    vocab_padding: int
    #: Layers must split evenly over pipeline stages.
    even_pp: bool
    #: Experts must split evenly over expert-parallel ranks.
    even_ep: bool
    #: GPTQ/AWQ group size and fp8 weight blocks constrain the per-rank FFN width.
    quantized: bool
    #: How routed experts' FFN width is split over tensor-parallel ranks.
    expert_split: ExpertSplit
    #: What the engine says (or does) when the heads do not divide.
    heads_failure: str


ENGINES: dict[str, Engine] = {
    "vllm": Engine(
        "vllm",
        "vLLM",
        replicate_kv=True,
        split_ffn=True,
        vocab_padding=VLLM_VOCAB_PADDING,
        even_pp=False,
        even_ep=False,
        quantized=True,
        expert_split="tp_unless_ep",
        heads_failure='vLLM refuses to start: "Total number of attention heads ({heads}) must be'
        ' divisible by tensor parallel size ({tp})"',
    ),
    "sglang": Engine(
        "sglang",
        "SGLang",
        replicate_kv=True,
        split_ffn=True,
        vocab_padding=VLLM_VOCAB_PADDING,
        even_pp=False,
        even_ep=True,
        quantized=True,
        expert_split="tp_over_ep",
        heads_failure="SGLang refuses it (QKVParallelLinear divides the heads over the ranks)",
    ),
    "megatron": Engine(
        "megatron",
        "Megatron-LM",
        replicate_kv=True,
        split_ffn=True,
        vocab_padding=0,
        even_pp=True,
        even_ep=True,
        quantized=False,
        expert_split="tp",
        heads_failure="Megatron-LM's argument validation asserts num_attention_heads %"
        " tensor_model_parallel_size == 0",
    ),
    "hf": Engine(
        "hf",
        "transformers (native TP)",
        replicate_kv=False,
        split_ffn=False,
        vocab_padding=0,
        even_pp=False,
        even_ep=True,
        quantized=False,
        expert_split="none",
        heads_failure="transformers' tensor-parallel plan splits q_proj by columns, so the"
        " attention reshape into heads fails at the first forward",
    ),
    "deepspeed": Engine(
        "deepspeed",
        "DeepSpeed",
        replicate_kv=True,
        split_ffn=False,
        vocab_padding=0,
        even_pp=False,
        even_ep=True,
        quantized=False,
        expert_split="none",
        heads_failure="",
    ),
}

#: The engines ``dimlint plan`` reports on, in this order.
PLAN_ENGINES = ("vllm", "sglang", "megatron", "hf")


class Refusal(Record):
    """Why an engine refuses a degree: the rule that reports it, where, and a sentence."""

    code: str
    #: The spec field the finding points at (``heads``, ``kv_heads``, ``ffn``, ``layers``…).
    field: str
    reason: str

    @property
    def summary(self) -> str:
        """The reason's first clause (``num_attention_heads 28 is not divisible by tp 8``)."""
        return self.reason.split(": ", 1)[0]


class Quantization(Record):
    """What of ``quantization_config`` constrains tensor-parallel shards."""

    method: str
    #: GPTQ/AWQ group size along the input dimension (None: per channel or unknown).
    group_size: int | None
    #: fp8 ``weight_block_size`` as (block_n, block_k).
    block: tuple[int, int] | None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def quantization(spec: ModelSpec) -> Quantization | None:
    """The group size / fp8 block of the config's ``quantization_config``, if it has one."""
    config = spec.raw.get("quantization_config")
    if not isinstance(config, dict):
        return None
    method = str(config.get("quant_method", "quantized"))
    group = _int(config.get("group_size")) or _int(config.get("q_group_size"))
    if group is None:
        for entry in (config.get("config_groups") or {}).values():
            weights = entry.get("weights") if isinstance(entry, dict) else None
            if isinstance(weights, dict) and _int(weights.get("group_size")):
                group = _int(weights.get("group_size"))
                break
    block = config.get("weight_block_size")
    pair = None
    if isinstance(block, list) and len(block) == 2 and all(_int(b) for b in block):
        pair = (int(block[0]), int(block[1]))
    if group is None and pair is None:
        return None
    return Quantization(method, group, pair)


def _name(spec: ModelSpec, field: str, default: str) -> str:
    located = getattr(spec, field, None)
    return located.key if located is not None else default


def _value(spec: ModelSpec, field: str) -> int | None:
    located = getattr(spec, field, None)
    return located.value if located is not None else None


def shared_expert_ffn(spec: ModelSpec) -> tuple[str, int] | None:
    """The shared expert's FFN width: Qwen's own key, else experts × width (DeepSeek)."""
    width = _int(spec.raw.get("shared_expert_intermediate_size"))
    if width is not None:
        return "shared_expert_intermediate_size", width
    shared, expert = _value(spec, "shared_experts"), _value(spec, "expert_ffn")
    if shared and expert:
        key = _name(spec, "expert_ffn", "moe_intermediate_size")
        return f"the shared expert width ({key} {expert} × n_shared_experts {shared})", (
            shared * expert
        )
    return None


def expert_tp(engine: Engine, tp: int, ep: int) -> int:
    """Ranks one routed expert's FFN is split over."""
    if engine.expert_split == "tp_unless_ep":
        return tp if ep == 1 else 1  # vLLM: expert parallelism turns off TP for the experts
    if engine.expert_split == "tp_over_ep":
        return max(1, tp // ep)  # SGLang: moe_tp_size = tp_size // ep_size
    if engine.expert_split == "tp":
        return tp  # Megatron: expert_tensor_parallel_size defaults to tensor_model_parallel_size
    return 1


def tp_refusals(engine: Engine, spec: ModelSpec, tp: int, ep: int = 1) -> list[Refusal]:
    """Why ``engine`` refuses tensor parallel size ``tp`` for ``spec`` (empty: it accepts it)."""
    found: list[Refusal] = []
    if tp == 1:
        return found
    heads = _value(spec, "heads")
    if heads is not None and heads % tp:
        name = _name(spec, "heads", "num_attention_heads")
        found.append(
            Refusal(
                "DL401",
                "heads",
                f"{name} {heads} is not divisible by tp {tp}: "
                + engine.heads_failure.format(heads=heads, tp=tp),
            )
        )
    kv = None if spec.is_mla else spec.effective_kv_heads
    if kv is not None and kv != heads:  # multi-head attention: DL401 already says it
        found += _kv_refusal(engine, spec, kv, tp)
    if engine.split_ffn:
        found += _ffn_refusals(engine, spec, tp, ep)
    vocab = _value(spec, "vocab")
    if engine.vocab_padding and vocab is not None:
        padded = -(-vocab // engine.vocab_padding) * engine.vocab_padding
        if padded % tp:
            name = _name(spec, "vocab", "vocab_size")
            shown = f"{vocab}" if padded == vocab else f"{vocab}, padded to {padded},"
            found.append(
                Refusal(
                    "DL404",
                    "vocab",
                    f"{name} {shown} is not divisible by tp {tp}: {engine.label}'s"
                    f" VocabParallelEmbedding pads the vocabulary to a multiple of"
                    f" {engine.vocab_padding} and then splits it into tp equal shards"
                    f" ({padded} / {tp} = {padded / tp:g}; vllm #31474)",
                )
            )
    return found


def _kv_refusal(engine: Engine, spec: ModelSpec, kv: int, tp: int) -> list[Refusal]:
    if kv % tp == 0:
        return []
    name = _name(spec, "kv_heads", "num_key_value_heads")
    if engine.replicate_kv:
        if tp > kv and tp % kv == 0:
            return []
        why = (
            f"{name} {kv} neither splits over nor replicates onto tp {tp}: {engine.label} gives"
            " each rank kv / tp KV heads when tp divides them, or copies each KV head to tp / kv"
            f" ranks when kv divides tp, and neither holds ({kv} % {tp} = {kv % tp}, {tp} %"
            f" {kv} = {tp % kv})"
        )
    else:
        why = (
            f"{name} {kv} is not divisible by tp {tp}: {engine.label} shards K/V heads without"
            " replicating them, so every rank needs whole KV heads (transformers #48307: TP 8"
            " with 4 KV heads fails mid-forward)"
        )
    return [Refusal("DL402", "kv_heads", why)]


def _ffn_refusals(engine: Engine, spec: ModelSpec, tp: int, ep: int) -> list[Refusal]:
    widths: list[tuple[str, str, int, int]] = []  # (field, key, width, ranks)
    ffn = _value(spec, "ffn")
    if ffn is not None:
        widths.append(("ffn", _name(spec, "ffn", "intermediate_size"), ffn, tp))
    shared = shared_expert_ffn(spec)
    if shared is not None:
        widths.append(("shared_ffn", shared[0], shared[1], tp))
    expert = _value(spec, "expert_ffn")
    ranks = expert_tp(engine, tp, ep)
    if expert is not None and _value(spec, "experts") and ranks > 1:
        routed = ("expert_ffn", _name(spec, "expert_ffn", "moe_intermediate_size"), expert, ranks)
        # one shared expert as wide as a routed one, split the same way: say it once
        widths = [w for w in widths if w[0] != "shared_ffn" or w[2:] != routed[2:]] + [routed]
    quant = quantization(spec) if engine.quantized else None
    found: list[Refusal] = []
    for field, key, width, split in widths:
        if width % split:
            found.append(
                Refusal(
                    "DL403",
                    field,
                    f"{key} {width} is not divisible by {split} ranks (tp {tp}): the"
                    f" {engine.label} column/row-parallel MLP projections split it into equal"
                    f" shards ({width} / {split} = {width / split:g})",
                )
            )
            continue
        if quant is not None:
            found += _quantized_refusals(quant, field, key, width, split, tp)
    return found


def _quantized_refusals(
    quant: Quantization, field: str, key: str, width: int, split: int, tp: int
) -> list[Refusal]:
    """Per-rank shards of a width that divides by ``split`` against groups and fp8 blocks."""
    shard = width // split
    share = f"{key} {width} / {split} = {shard} per rank"
    found: list[Refusal] = []
    if quant.group_size and shard % quant.group_size:
        found.append(
            Refusal(
                "DL403",
                field,
                f"{share} is not a multiple of the {quant.method} group size"
                f" {quant.group_size} (tp {tp}): the quantized down projection is refused"
                ' ("The input size is not aligned with the quantized weight shape"; vllm #5675,'
                " #21695)",
            )
        )
    if quant.block is not None:
        block_n, block_k = quant.block
        if shard % block_k:
            found.append(
                Refusal(
                    "DL403",
                    field,
                    f"{share} is not a multiple of the fp8 weight block_k {block_k} (tp {tp}):"
                    f' the row-parallel down projection is refused ("Weight'
                    f" input_size_per_partition = {shard} is not divisible by weight"
                    f' quantization block_k = {block_k}")',
                )
            )
        elif shard % block_n:
            found.append(
                Refusal(
                    "DL403",
                    field,
                    f"{share} is not a multiple of the fp8 weight block_n {block_n} (tp {tp}):"
                    f' the column-parallel gate/up projections are refused ("Weight'
                    f" output_partition_size = {shard} is not divisible by weight"
                    f' quantization block_n = {block_n}")',
                )
            )
    return found


def pp_refusals(engine: Engine, spec: ModelSpec, pp: int) -> list[Refusal]:
    """Why ``engine`` refuses ``pp`` pipeline stages for ``spec``."""
    layers = _value(spec, "layers")
    if pp == 1 or layers is None:
        return []
    name = _name(spec, "layers", "num_hidden_layers")
    if pp > layers:
        return [
            Refusal(
                "DL405",
                "layers",
                f"{name} {layers} is fewer than pp {pp}: some pipeline stages would hold no layer",
            )
        ]
    if engine.even_pp and layers % pp and not _uneven_split(spec, layers, pp):
        return [
            Refusal(
                "DL405",
                "layers",
                f"{name} {layers} is not divisible by pp {pp}: {engine.label} asserts"
                ' "num_layers should be divisible by pipeline_model_parallel_size" unless'
                " num_layers_in_first/last_pipeline_stage set an uneven split",
            )
        ]
    return []


#: Megatron arguments that place layers on stages by hand: any of them makes an uneven split legal.
#: FlagScale (a Megatron-LM fork) adds ``hetero_pipeline_layer_split``, the layers of each stage
#: of a heterogeneous run (``[2, 4, 2]`` over pp 3).
LAYOUT_KEYS = (
    "num_layers_in_first_pipeline_stage",
    "num_layers_in_last_pipeline_stage",
    "decoder_first_pipeline_num_layers",
    "decoder_last_pipeline_num_layers",
    "pipeline_model_parallel_layout",
    "hetero_pipeline_layer_split",
)
#: Every argument :func:`pp_refusals` reads about how layers are split over stages (what a
#: training YAML may state beside the parallel sizes rather than beside the model's keys).
SPLIT_KEYS = (
    *LAYOUT_KEYS,
    "account_for_embedding_in_pipeline_split",
    "account_for_loss_in_pipeline_split",
    "num_virtual_stages_per_pipeline_rank",
)


#: Megatron-LM's own pipeline arguments that name blocks, splits or layers without placing
#: layers unevenly (the encoder/decoder split rank; interleaving, which asks an even split).
UPSTREAM_PIPELINE_KEYS = frozenset(
    {
        "pipeline_model_parallel_split_rank",
        "num_layers_per_virtual_pipeline_stage",
        "virtual_pipeline_model_parallel_size",
    }
)
_FORK_SPLIT_WORDS = ("block", "split", "layer", "method")
#: A fork's method values that name upstream's even split (Yuan-2.0's default ``uniform``).
_EVEN_METHODS = frozenset({"uniform", "even"})


def fork_split_key(raw: dict[str, Any]) -> str | None:
    """A pipeline argument Megatron-LM does not define that says how layers go to stages: a
    fork's own placement (Yuan-2.0's ``--pipeline-model-parallel-method block`` with
    ``--pipeline-model-parallel-blocks 2,2,3,…``, checked by its ``arguments.py`` against the
    layer count instead of upstream's even split). Which split the fork accepts is its own, so
    upstream's divisibility is not asked; a method naming the even split
    (``uniform``) keeps upstream's rule whatever else is stated."""
    found = None
    for key, value in raw.items():
        if value in (None, False) or key.startswith("-") or "pipeline" not in key:
            continue
        if key in UPSTREAM_PIPELINE_KEYS or key in SPLIT_KEYS:
            continue
        if "method" in key and value in _EVEN_METHODS:
            return None
        if found is None and any(word in key for word in _FORK_SPLIT_WORDS):
            found = key
    return found


def _uneven_split(spec: ModelSpec, layers: int, pp: int) -> bool:
    """Whether the config splits its layers over stages in a way Megatron accepts unevenly: a
    stated layout or first/last stage size, a fork's own split (:func:`fork_split_key`), or
    ``account_for_embedding/loss_in_pipeline_split`` counting the embedding and loss as a layer
    each (with virtual stages: over pp × vp)."""
    raw = spec.raw
    if any(raw.get(key) not in (None, False) for key in LAYOUT_KEYS):
        return True
    if fork_split_key(raw) is not None:
        return True
    extra = sum(
        raw.get(key) is True
        for key in ("account_for_embedding_in_pipeline_split", "account_for_loss_in_pipeline_split")
    )
    if not extra:
        return False
    virtual = raw.get("num_virtual_stages_per_pipeline_rank")
    stages = pp * (virtual if isinstance(virtual, int) and virtual > 0 else 1)
    return (layers + extra) % stages == 0


def ep_refusals(engine: Engine, spec: ModelSpec, ep: int) -> list[Refusal]:
    """Why ``engine`` refuses ``ep`` expert-parallel ranks for ``spec``."""
    if ep == 1:
        return []
    experts = _value(spec, "experts") or 0
    if experts == 0:
        return [Refusal("DL406", "experts", "the model has no routed experts to distribute")]
    name = _name(spec, "experts", "num_experts")
    if ep > experts:
        return [
            Refusal(
                "DL406",
                "experts",
                f"{name} {experts} is fewer than ep {ep}: some expert-parallel ranks would hold"
                " no expert",
            )
        ]
    if engine.even_ep and experts % ep:
        return [
            Refusal(
                "DL406",
                "experts",
                f"{name} {experts} is not divisible by ep {ep}: {engine.label} gives every"
                f" expert-parallel rank the same number of experts ({experts} / {ep} ="
                f" {experts / ep:g})",
            )
        ]
    return []


def cp_refusals(
    engine: Engine, spec: ModelSpec, cp: int, sp: int, sequence: int, source: str = ""
) -> list[Refusal]:
    """Context (Megatron ``cp``) and Ulysses sequence (DeepSpeed ``sp``) parallel refusals.

    ``source`` names where the sequence length came from (``--context``, a config key).
    """
    found: list[Refusal] = []
    if cp > 1 and sequence % (2 * cp):
        origin = f" ({source})" if source else ""
        found.append(
            Refusal(
                "DL407",
                "max_positions",
                f"sequence length {sequence}{origin} is not a multiple of 2 × cp {cp} ="
                f" {2 * cp}:"
                f' {engine.label} asserts "seq-length should be a multiple of 2 *'
                ' context-parallel-size" (each rank takes two load-balanced chunks)',
            )
        )
    heads = _value(spec, "heads")
    if sp > 1 and heads is not None and heads % sp:
        found.append(
            Refusal(
                "DL407",
                "heads",
                f"{_name(spec, 'heads', 'num_attention_heads')} {heads} is not divisible by sp"
                f" {sp}: DeepSpeed-Ulysses exchanges whole heads between sequence-parallel"
                f' ranks ("Number of heads ({heads}) must be divisible by the sequence parallel'
                f' size ({sp})")',
            )
        )
    return found


def refusals(engine: Engine, spec: ModelSpec, kind: str, degree: int) -> list[Refusal]:
    """The refusals of one ``tp``/``pp``/``ep`` degree (the others at 1)."""
    if kind == "tp":
        return tp_refusals(engine, spec, degree)
    if kind == "pp":
        return pp_refusals(engine, spec, degree)
    return ep_refusals(engine, spec, degree)


#: The largest degree listed, the one limit of every command (``deploy.targets.MAX_DEGREE``):
#: listing every degree up to ``--budget 9999999xH100`` would never end.
MAX_DEGREE = _MAX_DEGREE


def valid_degrees(
    engine: Engine, spec: ModelSpec, kind: str, limit: int
) -> tuple[list[int], dict[int, list[Refusal]]]:
    """(accepted, {refused degree: refusals}) of ``tp``/``pp``/``ep`` from 1 to ``limit``
    (at most :data:`MAX_DEGREE`)."""
    accepted: list[int] = []
    refused: dict[int, list[Refusal]] = {}
    for degree in range(1, min(limit, MAX_DEGREE) + 1):
        found = refusals(engine, spec, kind, degree)
        if found:
            refused[degree] = found
        else:
            accepted.append(degree)
    return accepted, refused
