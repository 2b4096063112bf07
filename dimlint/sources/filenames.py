"""Names of the files beside a ``config.json`` that dimlint reads: weights and tokenizers."""

from __future__ import annotations

#: Files beside a ``config.json`` that rules read (DL605) — never checked as configs themselves.
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "added_tokens.json")


def is_weight_file(name: str) -> bool:
    """A safetensors file or index of the transformers layout: ``model*.safetensors``,
    ``model*.safetensors.index.json`` (Mistral's ``consolidated.*`` uses other tensor names)."""
    return name.startswith("model") and (
        name.endswith(".safetensors") or name.endswith(".safetensors.index.json")
    )
