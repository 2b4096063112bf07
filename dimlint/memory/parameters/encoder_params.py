"""BERT-style encoder stacks (BERT, RoBERTa, ELECTRA, RemBERT, RoFormer…), including their
causal-LM variants.

Every layer is post-LN: Q, K, V, output (all with biases), LayerNorm, intermediate and output
dense layers (biases), LayerNorm. The embeddings add learned positions and token types, and
the variants differ in embedding width (ELECTRA, RemBERT factorise it), in a pooler and in the
LM head (a dense transform + LayerNorm + tied decoder with its own bias, or nothing but a bias).
Which head and pooler exist follows ``architectures``: ``BertModel`` has a pooler and no head,
``BertLMHeadModel``/``…ForMaskedLM`` the reverse.
"""

from __future__ import annotations

from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters import block_params as blocks
from dimlint.memory.parameters.param_tally import Tally
from dimlint.records import Record


class Encoder(Record):
    #: the LM head: ``transform`` (dense + LayerNorm + tied decoder + bias), ``bias`` (tied
    #: decoder + bias only), ``electra`` (generator head), ``rembert`` (untied, own width)
    head: str = "transform"
    #: key of the embedding width when it differs from hidden (ELECTRA, RemBERT, RoFormer)
    embedding_key: str = ""
    token_types: bool = True
    #: the LayerNorm sits after the stack instead of after the embeddings (XLM-R XL)
    final_norm: bool = False
    embed_norm: bool = True
    #: the causal-LM class keeps the pooler (BigBird)
    causal_pooler: bool = False
    #: RoFormer's sinusoidal table is a parameter of max positions × head dim
    sinusoidal_param: bool = False
    #: attention sees the whole input, so there is no KV cache unless ``is_decoder`` makes
    #: the stack causal (GIT's text decoder is causal whatever the flag says)
    bidirectional: bool = True


ENCODERS: dict[str, Encoder] = {
    "bert": Encoder(),
    "bert-generation": Encoder(head="bias", token_types=False),
    "big_bird": Encoder(causal_pooler=True),
    "camembert": Encoder(),
    "data2vec-text": Encoder(),
    "electra": Encoder(head="electra", embedding_key="embedding_size"),
    "ernie": Encoder(),
    "megatron-bert": Encoder(),
    "rembert": Encoder(head="rembert", embedding_key="input_embedding_size"),
    "roberta": Encoder(),
    "roberta-prelayernorm": Encoder(final_norm=True),
    "roc_bert": Encoder(),
    "roformer": Encoder(embedding_key="embedding_size", sinusoidal_param=True),
    "xlm-roberta": Encoder(),
    "xlm-roberta-xl": Encoder(final_norm=True, embed_norm=False),
    "xmod": Encoder(),
    "git": Encoder(head="git", token_types=False, bidirectional=False),
    "layoutlm": Encoder(),
    "nezha": Encoder(),
    "mpnet": Encoder(),
}


def _has_lm_head(architecture: str) -> bool:
    name = architecture.lower()
    words = ("lmhead", "causallm", "maskedlm", "pretraining")
    return any(word in name for word in words) or name.endswith("decoder")


def _is_causal(architecture: str) -> bool:
    name = architecture.lower()
    return "causallm" in name or "lmhead" in name or name.endswith("decoder")


def count_encoder(cfg: Cfg, traits: Encoder, architecture: str) -> Tally:
    tally = Tally()
    hidden, vocab = cfg.hidden, cfg.vocab
    width = cfg.int(traits.embedding_key) if traits.embedding_key else 0
    width = width or hidden
    tally.embed(vocab * width)
    if traits.sinusoidal_param:
        tally.add(cfg.max_positions * cfg.head_dim)
    else:
        tally.embed(cfg.max_positions * width)
    if traits.token_types:
        tally.add(cfg.int("type_vocab_size", 2) * width)
    if cfg.flag("use_task_id"):
        tally.add(cfg.int("task_type_vocab_size", 3) * width)
    if traits.embed_norm:
        tally.add(blocks.norm("ln", width))
    if width != hidden:
        tally.add(blocks.linear(width, hidden, bias=True))
    _roc_bert_inputs(cfg, tally)
    ffn = cfg.ffn or 4 * hidden
    per_layer = blocks.attention(hidden, cfg.heads, cfg.heads, cfg.head_dim, qkv_bias=True)
    per_layer += hidden  # output dense bias
    per_layer += blocks.mlp(hidden, ffn, gated=False, bias=True) + 2 * blocks.norm("ln", hidden)
    per_layer += _xmod_adapters(cfg)
    tally.add(per_layer * cfg.layers)
    if traits.final_norm:
        tally.add(blocks.norm("ln", hidden))
    has_head = _has_lm_head(architecture)
    if not has_head or (traits.causal_pooler and _is_causal(architecture)):
        tally.add(blocks.linear(hidden, hidden, bias=True))  # pooler
    if has_head:
        _lm_head(cfg, traits, tally, width)
    return tally


def _lm_head(cfg: Cfg, traits: Encoder, tally: Tally, width: int) -> None:
    hidden, vocab = cfg.hidden, cfg.vocab
    if traits.head == "transform":
        tally.add(blocks.linear(hidden, width, bias=True) + blocks.norm("ln", width) + vocab)
    elif traits.head == "bias":
        tally.add(vocab)
    elif traits.head == "electra":
        tally.add(blocks.linear(hidden, width, bias=True) + blocks.norm("ln", width) + vocab)
    elif traits.head == "rembert":
        out = cfg.int("output_embedding_size") or hidden
        tally.add(blocks.linear(hidden, out, bias=True) + blocks.norm("ln", out))
        tally.embed(blocks.linear(out, vocab))
        tally.add(vocab)
        return
    elif traits.head == "git":
        tally.embed(vocab * hidden)
        tally.add(vocab)
        return
    if not cfg.tie and traits.head in ("transform", "bias", "electra"):
        tally.embed(vocab * width)


def _roc_bert_inputs(cfg: Cfg, tally: Tally) -> None:
    """RoCBert's pronunciation and glyph-shape embeddings, concatenated then mapped back."""
    if cfg.model_type != "roc_bert":
        return
    concatenated = cfg.hidden
    if cfg.flag("enable_pronunciation", True):
        dim = cfg.int("pronunciation_embed_dim")
        tally.add(cfg.int("pronunciation_vocab_size") * dim)
        concatenated += dim
    if cfg.flag("enable_shape", True):
        dim = cfg.int("shape_embed_dim")
        tally.add(cfg.int("shape_vocab_size") * dim)
        concatenated += dim
    if cfg.flag("concat_input", True):
        tally.add(blocks.linear(concatenated, cfg.hidden, bias=True))


def _xmod_adapters(cfg: Cfg) -> int:
    """X-MOD's per-language bottleneck adapters in every layer."""
    if cfg.model_type != "xmod":
        return 0
    hidden = cfg.hidden
    bottleneck = hidden // max(1, cfg.int("adapter_reduction_factor", 2))
    languages = len(cfg.list("languages") or ["en_XX"])
    adapter = blocks.linear(hidden, bottleneck, True) + blocks.linear(bottleneck, hidden, True)
    if cfg.flag("adapter_layer_norm"):
        adapter += blocks.norm("ln", hidden)
    shared_norm = 0 if cfg.flag("adapter_reuse_layer_norm", True) else blocks.norm("ln", hidden)
    return languages * adapter + shared_norm
