"""DL605: the tokenizer beside a config has ids the embedding does not have.

The tokenizers are real: trained with the ``tokenizers`` library and saved with transformers'
``save_pretrained`` (``tokenizer.json`` + ``tokenizer_config.json``), then given special tokens
without resizing the model — the way the mistake is made.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from checkpoint_builders import build, check, edit_config

from dimlint.lint.tokenizer import TokenId, _highest_in

REPO = Path(__file__).resolve().parent.parent
CORPUS = [
    "the quick brown fox jumps over the lazy dog",
    "a config that does not match its weights fails at load time",
    "static analysis of transformer model configurations",
] * 20


def _tokenizer(folder: Path, total: int = 0) -> Any:
    """Train a small BPE tokenizer (about a hundred tokens), add special tokens until it has
    ``total``, and save it into ``folder``."""
    pytest.importorskip("tokenizers")
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    raw = Tokenizer(models.BPE(unk_token="<unk>"))
    raw.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=200, special_tokens=["<unk>", "<s>", "</s>"])
    raw.train_from_iterator(CORPUS, trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=raw, unk_token="<unk>", bos_token="<s>", eos_token="</s>"
    )
    if total:
        added = [f"<|tool_{number}|>" for number in range(total - len(tokenizer))]
        tokenizer.add_special_tokens({"additional_special_tokens": added})
        assert len(tokenizer) == total
    tokenizer.save_pretrained(folder)
    return tokenizer


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("transformers")
    folder = tmp_path_factory.mktemp("tokenizer") / "llama"
    build("llama", folder)  # vocab_size 256
    return folder


def _copy(model: Path, target: Path) -> Path:
    import shutil

    shutil.copytree(model, target)
    return target


def _findings(folder: Path | str) -> list[dict[str, Any]]:
    return check(str(folder), "--select", "DL001,DL605")[1]


def test_tokenizer_within_the_vocabulary_is_clean(model: Path, tmp_path: Path) -> None:
    folder = _copy(model, tmp_path / "m")
    tokenizer = _tokenizer(folder)
    assert len(tokenizer) <= 256
    assert _findings(folder) == []


def test_added_tokens_beyond_the_vocabulary(model: Path, tmp_path: Path) -> None:
    folder = _copy(model, tmp_path / "m")
    _tokenizer(folder, total=260)  # the model's vocab_size is 256
    code, found = check(str(folder), "--select", "DL605")
    (finding,) = found
    assert code == 1
    assert finding["pointer"] == "/vocab_size"
    assert finding["message"].startswith("tokenizer.json has token id 259 (added token '<|tool_")
    assert "Raise vocab_size to 320 (the smallest multiple of 64" in finding["message"]


def test_added_tokens_decoder_of_tokenizer_config(model: Path, tmp_path: Path) -> None:
    """transformers 4 wrote the added tokens with their ids into tokenizer_config.json (most
    tokenizers on the Hub still carry it)."""
    folder = _copy(model, tmp_path / "m")
    decoder = {"0": {"content": "<unk>", "special": True}, "256": {"content": "<|im_end|>"}}
    config = {"added_tokens_decoder": decoder, "tokenizer_class": "PreTrainedTokenizerFast"}
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    (finding,) = _findings(folder)
    assert finding["message"].startswith(
        "tokenizer_config.json has token id 256 (added token '<|im_end|>') but vocab_size is 256"
    )


def test_tokenizer_without_weights(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    _tokenizer(folder, total=130)
    (folder / "config.json").write_text(
        json.dumps(
            {
                "model_type": "llama",
                "hidden_size": 64,
                "num_attention_heads": 4,
                "num_hidden_layers": 2,
                "vocab_size": 128,
            }
        )
    )
    (finding,) = _findings(folder)
    assert "token id 129" in finding["message"]
    assert "Raise vocab_size to 192" in finding["message"]


def test_vocabulary_of_a_multimodal_config(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "added_tokens.json").write_text(json.dumps({"<image>": 32000}))
    config = {
        "model_type": "llava",
        "text_config": {
            "model_type": "llama",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "num_hidden_layers": 32,
            "vocab_size": 32000,
        },
        "vision_config": {
            "model_type": "clip_vision_model",
            "hidden_size": 1024,
            "num_attention_heads": 16,
            "num_hidden_layers": 24,
        },
    }
    (folder / "config.json").write_text(json.dumps(config))
    (finding,) = _findings(folder)
    assert finding["pointer"] == "/text_config/vocab_size"
    assert "added_tokens.json has token id 32000 (added token '<image>')" in finding["message"]


def test_unreadable_tokenizer_is_an_input_problem(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "tokenizer.json").write_text("{ not json")
    (folder / "config.json").write_text(json.dumps({"model_type": "llama", "vocab_size": 10}))
    (finding,) = _findings(folder)
    assert finding["code"] == "DL001"
    assert finding["file"] == str(folder / "tokenizer.json")


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        (
            "tokenizer.json",
            {"model": {"type": "Unigram", "vocab": [["<pad>", 0.0], ["▁a", -1.0]]}},
            TokenId(1, "▁a", "tokenizer.json", "vocabulary"),
        ),
        (
            "tokenizer.json",
            {"model": {"vocab": {"a": 0, "b": 7}}, "added_tokens": [{"id": 3, "content": "x"}]},
            TokenId(7, "b", "tokenizer.json", "vocabulary"),
        ),
        (
            "tokenizer_config.json",
            {"added_tokens_decoder": {"5": {"content": "<s>"}, "9": {"content": "</s>"}}},
            TokenId(9, "</s>", "tokenizer_config.json", "added token"),
        ),
        ("tokenizer_config.json", {"model_max_length": 5}, None),
        (
            "added_tokens.json",
            {"<a>": 4, "<b>": True},
            TokenId(4, "<a>", "added_tokens.json", "added token"),
        ),
    ],
)
def test_highest_id_of_each_format(name: str, value: Any, expected: TokenId | None) -> None:
    assert _highest_in(name, value) == expected


PROBE = """
import io, json, sys
from dimlint.cli import main
code = main(["check", *sys.argv[1:]], io.StringIO(), io.StringIO())
mine = ("dimlint.lint.checkpoint", "dimlint.lint.tokenizer", "dimlint.memory",
        "dimlint.sources.safetensors", "dimlint.memory.checkpoint.expected_tensors")
print(json.dumps(sorted(m for m in mine if m in sys.modules)))
"""


def _loaded(*paths: str) -> list[str]:
    output = subprocess.run(
        [sys.executable, "-c", PROBE, *paths], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout
    result: list[str] = json.loads(output)
    return result


def test_plain_config_imports_nothing_of_the_checkpoint_code() -> None:
    assert _loaded("examples/qwen2-7b/config.json") == []
    assert _loaded("examples") == []


def test_tokenizer_alone_does_not_import_the_checkpoint_code(tmp_path: Path) -> None:
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"added_tokens_decoder": {}}))
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llama", "vocab_size": 10}))
    assert _loaded(str(tmp_path)) == ["dimlint.lint.checkpoint", "dimlint.lint.tokenizer"]


def test_weights_import_the_checkpoint_code(tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"")
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llama", "vocab_size": 10}))
    assert "dimlint.sources.safetensors" in _loaded(str(tmp_path))
    assert _loaded(str(tmp_path), "--no-weights") == []


def test_edit_config_helper_keeps_json(model: Path, tmp_path: Path) -> None:
    folder = _copy(model, tmp_path / "m")
    edit_config(folder, vocab_size=300)
    assert json.loads((folder / "config.json").read_text())["vocab_size"] == 300
