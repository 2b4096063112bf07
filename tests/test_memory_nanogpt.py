"""nanoGPT's dialect: a ``GPTConfig`` with ``n_layer``, ``n_head``, ``n_embd``, ``block_size`` and
``bias`` is counted as karpathy/nanoGPT's ``model.py`` builds it — learned positions of
``block_size`` rows, a plain 4 × GELU MLP, LayerNorms and Linears with a bias or none, the LM
head tied to the token embedding — and exactly; a ``GPTConfig`` whose dialect cannot be told is
labelled an estimate.

Three references: a hand derivation written out below, transformers' GPT-2 (the same layout as
``bias=True``) built on the meta device, and nanoGPT's own ``model.py`` (from the shared corpus)
built by torch on the meta device, which also covers ``bias=False``.
"""

from __future__ import annotations

import importlib.util
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from dimlint.cli import main
from tests.conftest import shared_path

#: GPT-2 small: 12 layers, 12 heads, 768 wide, 1024 positions.
SMALL = {"n_layer": 12, "n_head": 12, "n_embd": 768, "block_size": 1024}
SIZES = [
    {**SMALL, "vocab_size": 50257, "bias": True},
    {**SMALL, "vocab_size": 50304, "bias": True},
    {**SMALL, "vocab_size": 50304, "bias": False},
    # nanoGPT's shakespeare_char: 6 × 384, 256 positions, 65 characters
    {"n_layer": 6, "n_head": 6, "n_embd": 384, "block_size": 256, "vocab_size": 65, "bias": False},
]


def hand_count(n_layer: int, n_embd: int, block_size: int, vocab_size: int, bias: bool) -> int:
    """model.py, module by module (b = 1 with biases, 0 without):

    wte V·d, wpe P·d; per block: ln_1 and ln_2 d + b·d each, c_attn d·3d + b·3d, attn c_proj
    d·d + b·d, c_fc d·4d + b·4d, mlp c_proj 4d·d + b·d; ln_f d + b·d; lm_head tied to wte (0).
    """
    d, b = n_embd, int(bias)
    norm = d + b * d
    block = 2 * norm + (3 * d * d + b * 3 * d) + (d * d + b * d) + (4 * d * d + b * 4 * d)
    block += 4 * d * d + b * d
    return vocab_size * d + block_size * d + n_layer * block + norm


def test_the_hand_derivation_is_gpt2_smalls_published_count() -> None:
    # GPT-2 small with its 50,257-token vocabulary and tied head: 124,439,808 parameters
    assert hand_count(12, 768, 1024, 50257, True) == 124_439_808


def _class_file(tmp_path: Path, fields: dict[str, Any]) -> Path:
    """A model.py holding nanoGPT's ``GPTConfig``, with ``fields`` as its defaults."""
    path = tmp_path / "model.py"
    body = "".join(
        f"    {key}: {type(value).__name__} = {value!r}\n" for key, value in fields.items()
    )
    path.write_text(
        "from dataclasses import dataclass\n\n@dataclass\nclass GPTConfig:\n"
        + body
        + "    dropout: float = 0.0\n"
    )
    return path


def _mem(path: Path) -> dict[str, Any]:
    out = io.StringIO()
    assert (
        main(["mem", str(path), "--no-config", "--output-format", "json"], out, io.StringIO()) == 0
    )
    found: dict[str, Any] = json.loads(out.getvalue())
    return found


@pytest.mark.parametrize(
    "fields", SIZES, ids=lambda f: f"{f['n_embd']}x{f['vocab_size']}-{f['bias']}"
)
def test_mem_counts_nanogpt_exactly(tmp_path: Path, fields: dict[str, Any]) -> None:
    mem = _mem(_class_file(tmp_path, fields))
    expected = hand_count(
        fields["n_layer"],
        fields["n_embd"],
        fields["block_size"],
        fields["vocab_size"],
        fields["bias"],
    )
    assert mem["model_type"] == "nanogpt"
    assert mem["params"]["total"] == expected
    assert mem["params"]["exact"] is True
    # positions end at block_size: the KV cache's default context is nanoGPT's
    assert mem["kv_cache"]["context"] == fields["block_size"]
    out = io.StringIO()
    argv = ["shapes", str(_class_file(tmp_path, fields)), "--no-config", "--output-format", "json"]
    assert main(argv, out, io.StringIO()) == 0
    assert json.loads(out.getvalue())["total"] == expected


def test_a_call_overriding_the_class_is_nanogpt_too(tmp_path: Path) -> None:
    """``GPTConfig(n_layer=24, ...)`` below the class (the defaults it does not override come
    from the class): the GPT-2 medium shape."""
    path = _class_file(tmp_path, {**SMALL, "vocab_size": 50304, "bias": True})
    path.write_text(path.read_text() + "\nconfig = GPTConfig(n_layer=24, n_head=16, n_embd=1024)\n")
    from dimlint.lint.model_input import read_model
    from dimlint.memory import model_parameters

    model = read_model(str(path), no_config=True)
    assert model.specs[0].model_type == "nanogpt"  # the class defaults (the first model)
    from dimlint.lint.pipeline import lint_path
    from dimlint.lint.selection import Selection

    result, _ = lint_path(str(path), Selection())
    counts = [model_parameters(specs) for specs in result.models]
    assert [c.total for c in counts] == [
        hand_count(12, 768, 1024, 50304, True),
        hand_count(24, 1024, 1024, 50304, True),
    ]
    assert all(c.exact for c in counts)


@pytest.mark.parametrize(
    "fields",
    [
        {**SMALL, "vocab_size": 50304},  # no ``bias`` field: minGPT's, llm.c's layouts too
        {"vocab_size": 50304, "n_layer": 12, "n_head": 6, "n_embd": 768},  # modded-nanogpt
    ],
)
def test_a_gptconfig_whose_dialect_is_unknown_is_an_estimate(
    tmp_path: Path, fields: dict[str, Any]
) -> None:
    mem = _mem(_class_file(tmp_path, fields))
    assert mem["model_type"] is None
    assert mem["params"]["exact"] is False
    out = io.StringIO()
    assert main(["mem", str(_class_file(tmp_path, fields)), "--no-config"], out, io.StringIO()) == 0
    assert " estimate" in out.getvalue().splitlines()[1]


def test_an_unknown_bias_leaves_the_dialect_unidentified(tmp_path: Path) -> None:
    path = _class_file(tmp_path, {**SMALL, "vocab_size": 50304, "bias": True})
    path.write_text(path.read_text().replace("bias: bool = True", "bias: bool = BIAS"))
    assert _mem(path)["params"]["exact"] is False


def test_a_training_script_without_vocabulary_is_an_estimate(tmp_path: Path) -> None:
    """nanoGPT's train.py: the settings are module assignments, the vocabulary comes from the
    dataset at run time — nanoGPT's model, with the embedding left out and said so."""
    path = tmp_path / "train.py"
    path.write_text(
        "from model import GPTConfig, GPT\n\nblock_size = 1024\nn_layer = 12\nn_head = 12\n"
        "n_embd = 768\ndropout = 0.0\nbias = False\n"
    )
    mem = _mem(path)
    assert mem["model_type"] == "nanogpt"
    assert mem["params"]["exact"] is False
    assert mem["params"]["total"] == hand_count(12, 768, 1024, 0, False)
    assert any("vocab not known" in note for note in mem["notes"])


def _meta_count(model: Any) -> int:
    """Parameters of a torch module, shared (tied) tensors once."""
    return sum(p.numel() for p in {id(p): p for p in model.parameters()}.values())


def test_transformers_gpt2_on_the_meta_device(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    for fields in SIZES:
        if not fields["bias"]:
            continue  # GPT-2 has biases everywhere: nanoGPT's bias=True
        config = transformers.GPT2Config(
            n_layer=fields["n_layer"],
            n_head=fields["n_head"],
            n_embd=fields["n_embd"],
            n_positions=fields["block_size"],
            vocab_size=fields["vocab_size"],
            tie_word_embeddings=True,
        )
        with torch.device("meta"):
            built = transformers.GPT2LMHeadModel(config)
        assert _mem(_class_file(tmp_path, fields))["params"]["total"] == _meta_count(built)


def test_nanogpts_own_model_on_the_meta_device(tmp_path: Path) -> None:
    """nanoGPT's ``model.py`` itself, built by torch: every size, with and without biases."""
    torch = pytest.importorskip("torch")
    source = shared_path("corpus", "repos", "karpathy__nanoGPT", "model.py")
    spec = importlib.util.spec_from_file_location("nanogpt_model", source)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["nanogpt_model"] = module
    try:
        spec.loader.exec_module(module)
        for fields in SIZES:
            with torch.device("meta"):
                built = module.GPT(module.GPTConfig(**fields))
            assert _mem(_class_file(tmp_path, fields))["params"]["total"] == _meta_count(built)
            # and dimlint reads nanoGPT's own file as it is: GPT-2 small at 50,304 tokens
        assert _mem(source)["params"]["total"] == hand_count(12, 768, 1024, 50304, True)
    finally:
        del sys.modules["nanogpt_model"]
