"""Generators of hostile inputs, shared by the hypothesis suite and the fuzz campaign.

Every generator draws its choices from a :class:`Source`: in the property tests that is
hypothesis (so failures shrink), in ``scripts/fuzz_campaign.py`` a seeded ``random.Random``
(fast, reproducible, minutes long). An input is a set of files plus a command line.
"""

from __future__ import annotations

import json
import random
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Source(Protocol):
    def choice(self, options: Sequence[T]) -> T: ...
    def integer(self, low: int, high: int) -> int: ...


class RandomSource:
    """Choices from a seeded ``random.Random`` (the campaign)."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def choice(self, options: Sequence[T]) -> T:
        return options[self.random.randrange(len(options))]

    def integer(self, low: int, high: int) -> int:
        return self.random.randint(low, high)


class HypothesisSource:
    """Choices drawn through hypothesis' ``data`` object (the property tests: they shrink)."""

    def __init__(self, data: Any) -> None:
        self.data = data

    def choice(self, options: Sequence[T]) -> T:
        from hypothesis import strategies as st

        return options[self.data.draw(st.integers(0, len(options) - 1))]

    def integer(self, low: int, high: int) -> int:
        from hypothesis import strategies as st

        return int(self.data.draw(st.integers(low, high)))


@dataclass
class Input:
    """Files (relative path → bytes) and a command line (``{root}`` is the folder)."""

    files: dict[str, bytes]
    argv: list[str]
    #: Exit 2 is allowed (a settings file or a command line that is a usage error).
    usage: bool = False
    #: The file the checks look at after the run (fixes keep its syntax).
    main: str = "c/config.json"
    notes: list[str] = field(default_factory=list)


# --- atoms ---------------------------------------------------------------------------------

HUGE = 10**309
#: Values a dimension key may hold in a hostile config (JSON-serialisable with allow_nan).
ATOMS: list[Any] = [
    0, -2, 1, 2, 3, 7, 8, 12, 32, 64, 100, 128, 4096, 4100, 11008, 32000, 151936, 2**31,
    2**63 - 1, 2**63, 10**18, 10**35, HUGE, -HUGE, 0.5, 1.0, 4096.0, 1e308, float("nan"),
    float("inf"), "4096", "", "1", "8", "\u2028", "full_attention", True, False, None, [],
    {}, [1, "a"], [[1]], {"a": [1]}, ["sliding_attention", "full_attention"],
    {"rope_type": "yarn", "factor": 4}, {"rope_type": "linear", "factor": HUGE},
]  # fmt: skip
KEYS = [
    "hidden_size", "intermediate_size", "num_attention_heads", "num_key_value_heads",
    "num_hidden_layers", "vocab_size", "max_position_embeddings", "head_dim", "n_embd", "n_head",
    "n_layer", "d_model", "num_local_experts", "num_experts", "n_routed_experts",
    "num_experts_per_tok", "moe_intermediate_size", "first_k_dense_replace", "kv_lora_rank",
    "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "n_group", "topk_group",
    "sliding_window", "max_window_layers", "use_sliding_window", "layer_types",
    "sliding_window_pattern", "rope_scaling", "rope_theta", "partial_rotary_factor",
    "tie_word_embeddings", "torch_dtype", "bos_token_id", "eos_token_id", "pad_token_id",
    "model_type", "attn_layer_period", "attn_layer_offset", "decoder_sparse_step",
    "mlp_only_layers", "num_kv_shared_layers", "per_layer_config", "text_config",
    "hybrid_override_pattern", "full_attention_interval", "quantization_config",
]  # fmt: skip
MODEL_TYPES = [
    "llama",
    "qwen2",
    "qwen3_moe",
    "mistral",
    "gemma2",
    "gemma3_text",
    "gpt2",
    "deepseek_v3",
    "mixtral",
    "jamba",
    "bamba",
    "qwen3_next",
    "falcon",
    "phi3",
    "nemotron_h",
    "zamba2",
    "recurrent_gemma",
    "t5",
    "bert",
    "whisper",
    "unknown_x",
]
BASE: dict[str, Any] = {
    "model_type": "qwen2", "hidden_size": 896, "intermediate_size": 4864,
    "num_attention_heads": 14, "num_key_value_heads": 2, "num_hidden_layers": 24,
    "vocab_size": 151936, "max_position_embeddings": 32768, "torch_dtype": "bfloat16",
}  # fmt: skip


def atom(source: Source) -> Any:
    value = source.choice(ATOMS)
    if source.integer(0, 9) == 0:
        return source.integer(-(2**70), 2**70)
    return value


def nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


# --- JSON configs ----------------------------------------------------------------------------


def mutate_config(source: Source, base: dict[str, Any]) -> dict[str, Any]:
    """A few value-level mutations of a config (set, delete, nest, pattern lists)."""
    config = dict(base)
    for _ in range(source.integer(1, 4)):
        kind = source.integer(0, 9)
        key = source.choice(KEYS) if source.integer(0, 2) else source.choice([*config] or KEYS)
        if kind <= 5:
            config[key] = atom(source)
        elif kind == 6 and key in config:
            del config[key]
        elif kind == 7:
            config["text_config"] = mutate_config(source, {**BASE, "model_type": "llama"})
        elif kind == 8:
            length = source.integer(0, 6)
            config["layer_types"] = [source.choice(ATOMS[-12:]) for _ in range(length)]
        else:
            config["model_type"] = source.choice(MODEL_TYPES)
    return config


def mutate_bytes(source: Source, data: bytes) -> bytes:
    """A byte-level mutation: truncate, insert, duplicate a line, or swap a byte."""
    if not data:
        return data
    kind = source.integer(0, 5)
    at = source.integer(0, len(data) - 1)
    if kind == 0:
        return data[:at]
    if kind == 1:
        insert = source.choice(
            [b",", b"{", b"]", b'"', b"\\", b"\x00", b"\xff", b"\r", b"\xe2\x80\xa8", b"-", b"e9"]
        )
        return data[:at] + insert + data[at:]
    if kind == 2:
        lines = data.split(b"\n")
        index = source.integer(0, len(lines) - 1)
        return b"\n".join(lines[: index + 1] + lines[index:])
    if kind == 3:
        return data.replace(b"\n", b"\r")
    if kind == 4:
        return data[:at] + nested(source.integer(1, 3000)).encode() + data[at:]
    return data[:at] + bytes([source.integer(0, 255)]) + data[at + 1 :]


def config_bytes(source: Source, base: dict[str, Any] | None = None) -> bytes:
    config = mutate_config(source, base or BASE)
    data = json.dumps(config, indent=2, allow_nan=True).encode()
    if source.integer(0, 4) == 0:
        data = mutate_bytes(source, data)
    return data


TARGETS = [
    "vllm:tp=8",
    "vllm:tp=3",
    "megatron:tp=4,pp=2,ep=8",
    "sglang:tp=8",
    "hf:tp=4",
    "fa2",
    "fa3",
    "fp8",
    "vllm:tp=1024",  # the largest degree any command takes (above it: a usage error)
    "megatron:tp=1,pp=1023,cp=7",
]
BUDGETS = ["8xH100-80GB", "1xRTX4090-24GB", "9999999xH100-80GB", "2xMI300X-192GB"]
FORMATS = ["full", "concise", "json", "github", "sarif", "junit"]


def check_flags(source: Source) -> list[str]:
    flags = ["--no-config", "--output-format", source.choice(FORMATS)]
    if source.integer(0, 1):
        flags += ["--target", source.choice(TARGETS)]
    if source.integer(0, 2) == 0:
        flags += ["--budget", source.choice(BUDGETS)]
    if source.integer(0, 2) == 0:
        flags += ["--context", str(source.choice([1, 4096, 131072, 10**12]))]
    if source.integer(0, 1):
        flags += ["--fix", *(["--unsafe-fixes"] if source.integer(0, 1) else [])]
    if source.integer(0, 3) == 0:
        flags += ["--extend-select", "DL203"]
    return flags


def json_input(source: Source, base: dict[str, Any] | None = None) -> Input:
    return Input(
        {"c/config.json": config_bytes(source, base)},
        ["check", "{root}/c", *check_flags(source)],
    )


def command_input(source: Source, base: dict[str, Any] | None = None) -> Input:
    """``mem``/``plan``/``shapes`` (and ``check --budget``) on a mutated config."""
    data = config_bytes(source, base)
    command = source.choice(["mem", "plan", "shapes", "check"])
    argv = [command, "{root}/c/config.json" if command != "check" else "{root}/c"]
    if command == "mem":
        argv += source.choice(
            [
                [],
                ["--training", "--zero", "3", "--dp", "8"],
                ["--tp", "8"],
                ["--budget", source.choice(BUDGETS)],
                ["--context", "1000000"],
                ["--output-format", "json"],
                ["--pp", "7", "--kv-dtype", "fp8"],
            ]
        )
    elif command == "plan":
        argv += source.choice([[], ["--gpu", "H100-80GB"], ["--max-gpus", "64"],
                               ["--context", "131072", "--output-format", "json"]])  # fmt: skip
    elif command == "shapes":
        argv += source.choice([[], ["--seq", "1000000"], ["--output-format", "json"]])
    else:
        argv += ["--no-config", "--budget", source.choice(BUDGETS), "--context", "8192"]
    # exit 2 is the contract for a config the command cannot read (a usage error)
    return Input({"c/config.json": data}, argv, usage=command != "check")


# --- Python sources --------------------------------------------------------------------------

EXPRESSIONS = ["768", "4096", "4100", "10", "0", "-3", "H", "4 * H", "H // 64", "2**12",
               "10**12", "10**400", "1 << 64", "H * H * H * H", "int(4096.0)", "(H)", "N",
               "'a'", "None", "True", "1e400", "3.5", "0x100", "1_024", "-(-768)"]  # fmt: skip
PREFIXES = [b"", b"# coding: utf-8\n", b"# coding: latin-1\n", b"# coding: undefined\n",
            b"# -*- coding: unicode_escape -*-\n", b"# coding: rot13\n", b"\x0c", b"\\\n",
            b"'''doc\rstring'''\n", b"X = 'a\x00b'\n", b"Y = 'a' b'b'\n", b"\xef\xbb\xbf",
            b"\xff\n"]  # fmt: skip
TEMPLATES = [
    "attn = nn.MultiheadAttention(embed_dim={a}, num_heads={b})\n",
    "layer = nn.TransformerEncoderLayer({a}, {b}, dim_feedforward={c})\n",
    "proj = nn.Linear({a}, {c}, bias=False)\n",
    "config = LlamaConfig(hidden_size={a}, num_attention_heads={b}, intermediate_size={c},"
    " num_hidden_layers={d})\n",
    "@dataclass\nclass Config:\n    n_embd: int = {a}\n    n_head: int = {b}\n"
    "    n_layer: int = {d}\n    vocab_size: int = {c}\n",
    "CONFIGS = {{'small': dict(n_embd={a}, n_head={b}, n_layer={d})}}\n",
]


def python_source(source: Source) -> bytes:
    head = b"import torch\nfrom torch import nn\nfrom dataclasses import dataclass\n"
    head += b"from transformers import LlamaConfig\n"
    constants = f"H = {source.choice(EXPRESSIONS[:6])}\nN = H + H\n"
    if source.integer(0, 3) == 0:  # a chain of constants, or a long sum
        depth = source.integer(1, 60)
        constants += "A0 = 1\n" + "".join(f"A{i} = A{i - 1} + A{i - 1}\n" for i in range(1, depth))
        constants += f"H = A{depth - 1}\n"
    if source.integer(0, 5) == 0:
        constants += "H = " + "+".join(["1"] * source.integer(2, 400)) + "\n"
    body = "".join(
        source.choice(TEMPLATES).format(
            a=source.choice(EXPRESSIONS),
            b=source.choice(EXPRESSIONS),
            c=source.choice(EXPRESSIONS),
            d=source.choice(EXPRESSIONS),
        )
        for _ in range(source.integer(1, 3))
    )
    text = (head.decode() + constants + body).encode()
    prefix = source.choice(PREFIXES)
    data = prefix + text
    ending = source.integer(0, 5)
    if ending == 0:
        data = data.replace(b"\n", b"\r\n")
    elif ending == 1:
        data = data.replace(b"\n", b"\r")
    return data


def python_input(source: Source) -> Input:
    flags = ["--no-config", "--output-format", "json"]
    if source.integer(0, 1):
        flags += ["--fix", "--unsafe-fixes"]
    return Input({"m.py": python_source(source)}, ["check", "{root}/m.py", *flags], main="m.py")


# --- checkpoints -----------------------------------------------------------------------------

SMALL = {**BASE, "hidden_size": 8, "intermediate_size": 16, "num_attention_heads": 2,
         "num_key_value_heads": 1, "num_hidden_layers": 1, "vocab_size": 16}  # fmt: skip
DTYPES = ["F32", "BF16", "F16", "I8", "F8_E4M3", "F4", ["F32"], {"a": 1}, 5, None, "X"]
SHAPES: list[Any] = [[16, 8], [0, 8], [16, 0], [], [10**400, 8], [-1, 8], ["16", 8], 5,
                     [2**63, 2**63], [16, 8, 1]]  # fmt: skip


def header_value(source: Source) -> dict[str, Any]:
    names = [
        "model.embed_tokens.weight",
        "lm_head.weight",
        "model.norm.weight",
        "model.layers.0.self_attn.q_proj.weight",
        "model.layers.99.mlp.up_proj.weight",
    ]
    header: dict[str, Any] = {}
    offset = 0
    for _ in range(source.integer(0, 4)):
        dtype = source.choice(DTYPES)
        shape = source.choice(SHAPES)
        size = 0
        if isinstance(shape, list) and all(isinstance(d, int) and 0 <= d < 2**20 for d in shape):
            count = 1
            for d in shape:
                count *= d
            size = count * 4
        end = offset + source.choice([size, size, 0, 10**400, -4])
        header[source.choice(names)] = {"dtype": dtype, "shape": shape,
                                        "data_offsets": [offset, end]}  # fmt: skip
        offset = end if isinstance(end, int) and 0 <= end < 2**20 else offset
    if source.integer(0, 3) == 0:
        header["__metadata__"] = source.choice([{"format": "pt"}, {"format": HUGE}, 5, []])
    return header


def safetensors_bytes(source: Source) -> bytes:
    header = header_value(source)
    encoded = json.dumps(header, allow_nan=True).encode()
    if source.integer(0, 5) == 0:
        encoded = nested(source.integer(100, 100_000)).encode()
    data_size = 0
    for entry in header.values():
        if isinstance(entry, dict):
            offsets = entry.get("data_offsets")
            if (
                isinstance(offsets, list)
                and isinstance(offsets[1], int)
                and 0 <= offsets[1] < 2**20
            ):
                data_size = max(data_size, offsets[1])
    length = len(encoded)
    if source.integer(0, 7) == 0:
        length = source.choice([0, 2**64 - 1, len(encoded) + 5, 10**8 + 1])
    return struct.pack("<Q", length) + encoded + bytes(data_size)


def safetensors_input(source: Source) -> Input:
    files = {"c/config.json": json.dumps(mutate_config(source, SMALL)).encode()}
    files["c/model.safetensors"] = safetensors_bytes(source)
    if source.integer(0, 2) == 0:
        files["c/tokenizer.json"] = source.choice([
            b'{"added_tokens": 5}', b'{"model": {"vocab": {"a": 99}}, "added_tokens": []}',
            json.dumps({"model": {"vocab": {"a": HUGE}}}).encode(), nested(50_000).encode(),
            b'{"model": 3, "added_tokens": [{"id": -1}, {"id": 1e400}]}',
        ])  # fmt: skip
    command = source.choice(["check", "check", "plan"])
    argv = [command, "{root}/c"] + (["--no-config"] if command == "check" else [])
    return Input(files, argv, usage=command == "plan")


def index_input(source: Source) -> Input:
    files = {"c/config.json": json.dumps(SMALL).encode()}
    weight_map: Any = {"model.embed_tokens.weight": "model-00001-of-00002.safetensors",
                       "lm_head.weight": "model-00002-of-00002.safetensors"}  # fmt: skip
    kind = source.integer(0, 5)
    if kind == 0:
        weight_map = source.choice([[1, 2], 5, {"a": 5}, {"a": None}, {}])
    elif kind == 1:
        weight_map["x"] = source.choice(["model-00003-of-00002.safetensors", "", "."])
    metadata = {"total_size": atom(source)}
    index: Any = {"metadata": metadata, "weight_map": weight_map}
    text = json.dumps(index, allow_nan=True).encode()
    if kind == 2:
        text = nested(source.integer(10, 100_000)).encode()
    files["c/model.safetensors.index.json"] = text
    for shard in ("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"):
        if source.integer(0, 3):
            files[f"c/{shard}"] = safetensors_bytes(source)
    return Input(files, ["check", "{root}/c", "--no-config"])


# --- settings --------------------------------------------------------------------------------

SETTING_KEYS = [
    "select",
    "ignore",
    "extend-select",
    "per-file-ignores",
    "severity",
    "exclude",
    "baseline",
    "fail-level",
    "target",
    "targets",
    "budget",
    "context",
    "unknown",
]
SETTING_VALUES = ['["DL1"]', '[""]', '"DL1"', "5", "[1]", '{DL1 = "info"}', '{"*.json" = ["DL2"]}',
                  "true", '"error"', '["vllm:tp=8"]', '"8xH100-80GB"', "4096", f"{10**400}",
                  "[" * 600 + "]" * 600, '"\\ud800"', "1e400", "nan"]  # fmt: skip


def settings_input(source: Source) -> Input:
    lines = [f"{source.choice(SETTING_KEYS)} = {source.choice(SETTING_VALUES)}"
             for _ in range(source.integer(0, 3))]  # fmt: skip
    body = "\n".join(dict.fromkeys(lines)) + "\n"
    name = source.choice(["pyproject.toml", "dimlint.toml"])
    text = ("[tool.dimlint]\n" + body) if name == "pyproject.toml" else body
    data = text.encode()
    if source.integer(0, 5) == 0:
        data = source.choice([b"\xff\xfe", b"[tool.dimlint\n", b"\x00" * 5]) + data
    files = {name: data, "c/config.json": json.dumps(BASE).encode()}
    return Input(files, ["check", "{root}/c"], usage=True)


GENERATORS: dict[str, Callable[[Source], Input]] = {
    "json": json_input,
    "commands": command_input,
    "python": python_input,
    "safetensors": safetensors_input,
    "index": index_input,
    "settings": settings_input,
}
