"""Which models keep a KV cache at all, and what every sequence's cache holds beyond its input.

An encoder runs once over its input and keeps nothing; a decoder keeps each layer's keys and
values for the tokens it has seen. transformers says which a model type is by the classes it
registers for it (:func:`never_generates`); a few decoders keep no cache whatever their classes
(GPT-1 and XLM recompute the prefix), and BERT-style encoders keep one only when ``is_decoder``
makes them causal.
"""

from __future__ import annotations

from dimlint.config.model_classes import classes_of
from dimlint.memory.config_view import Cfg

#: Families whose transformers implementation keeps no cache (each step recomputes the whole
#: prefix) and that no serving engine runs: GPT-1, XLM.
NO_CACHE = frozenset({"openai-gpt", "xlm"})

#: BERT-like encoders: attention sees the whole input, so there is no KV cache unless
#: ``is_decoder`` makes the stack causal (GIT's text decoder, causal whatever the flag says, is
#: not one of them).
BIDIRECTIONAL_ENCODERS = frozenset(
    {
        "bert",
        "bert-generation",
        "big_bird",
        "camembert",
        "data2vec-text",
        "electra",
        "ernie",
        "megatron-bert",
        "rembert",
        "roberta",
        "roberta-prelayernorm",
        "roc_bert",
        "roformer",
        "xlm-roberta",
        "xlm-roberta-xl",
        "xmod",
        "layoutlm",
        "nezha",
        "mpnet",
    }
)

#: Prompt tokens a family prepends to every input, by the key that counts them (CPM-Ant).
PROMPT_TOKENS = {"cpmant": "prompt_length"}


#: Parts of a class name that mark a class which generates token by token (and so keeps a
#: cache): causal LMs and their LM-head spellings, conditional generation, seq2seq and
#: speech/text generation classes, encoder-decoder composites.
_GENERATING = (
    "CausalLM",
    "LMHead",
    "ConditionalGeneration",
    "SpeechToText",
    "TextToSpeech",
    "Text2Text",
    "TextToText",
    "CausalImageModeling",
    "MTModel",
    "EncoderDecoderModel",
)


def never_generates(model_type: str) -> bool:
    """Whether transformers registers classes for ``model_type`` and none of them generates
    (ViT, wav2vec2, CLIP, DeBERTa, DistilBERT): an encoder runs once over its input and keeps
    no cache. A type it does not know (remote code) is taken to be a decoder."""
    classes = classes_of(model_type) if model_type else ()
    return bool(classes) and not any(part in name for name in classes for part in _GENERATING)


def no_cache(cfg: Cfg) -> bool:
    """Models that keep nothing between steps (module doc)."""
    if cfg.model_type in NO_CACHE or never_generates(cfg.model_type):
        return True
    return cfg.model_type in BIDIRECTIONAL_ENCODERS and cfg.get("is_decoder") is not True
