"""The pathological inputs of issue 10 (bounded work), as small folders built on demand.

Each :class:`Case` is a set of files and one command line. The regression test runs every case
in-process and asserts what the issue's contract says: the run ends quickly, with exit 0 or 1 and
no internal error. ``python tests/hostile_inputs.py`` times each case in a fresh process (the
before/after table of the issue).
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

QWEN2: dict[str, Any] = {
    "architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2",
    "hidden_size": 3584,
    "intermediate_size": 18944,
    "max_position_embeddings": 32768,
    "num_attention_heads": 28,
    "num_hidden_layers": 28,
    "num_key_value_heads": 4,
    "vocab_size": 152064,
    "torch_dtype": "bfloat16",
    "tie_word_embeddings": False,
}
DEEPSEEK: dict[str, Any] = {
    "model_type": "deepseek_v3",
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "moe_intermediate_size": 2048,
    "num_hidden_layers": 61,
    "num_attention_heads": 128,
    "num_key_value_heads": 128,
    "n_routed_experts": 256,
    "n_shared_experts": 1,
    "num_experts_per_tok": 8,
    "first_k_dense_replace": 3,
    "q_lora_rank": 1536,
    "kv_lora_rank": 512,
    "qk_rope_head_dim": 64,
    "qk_nope_head_dim": 128,
    "v_head_dim": 128,
    "vocab_size": 129280,
    "max_position_embeddings": 163840,
    "n_group": 8,
    "topk_group": 4,
}
HUGE = 10**309
#: Past Python's 4,300-digit limit on int() and str(int).
LONG_DIGITS = "1" + "0" * 5000


def config(**changes: Any) -> bytes:
    return json.dumps({**QWEN2, **changes}, indent=2).encode()


def raw_config(replace: str, by: str, base: dict[str, Any] | None = None) -> bytes:
    """A config whose text has ``replace`` swapped for ``by`` (for values json.dumps cannot
    write: NaN-free huge literals, 5,000-digit numbers)."""
    text = json.dumps(base or QWEN2, indent=2)
    assert replace in text
    return text.replace(replace, by, 1).encode()


def safetensors(header: Any, data: bytes = b"") -> bytes:
    encoded = json.dumps(header).encode() if not isinstance(header, bytes) else header
    return struct.pack("<Q", len(encoded)) + encoded + data


def nested(depth: int, leaf: str = "1") -> str:
    return '{"a":' * depth + leaf + "}" * depth


@dataclass
class Case:
    name: str
    files: dict[str, bytes]
    argv: list[str]
    #: Seconds the case may take in-process (generous: shared CI machines).
    limit: float = 10.0
    #: Exit 2 is the contract here (an unreadable settings file is a usage error).
    usage: bool = False

    def build(self, root: Path) -> list[str]:
        for name, content in self.files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        return [arg.replace("{root}", str(root)) for arg in self.argv]


def _cases() -> list[Case]:
    cases: list[Case] = []

    def add(
        name: str, files: dict[str, bytes], *argv: str, limit: float = 10.0, usage: bool = False
    ) -> None:
        cases.append(Case(name, files, list(argv), limit, usage))

    # --- closed forms instead of loops over layers, GPUs, TP degrees, heads ---
    for layers in (10**6, 10**9, 10**18):
        files = {"c/config.json": config(num_hidden_layers=layers)}
        add(f"mem-layers-{layers}", files, "mem", "{root}/c/config.json")
        add(f"plan-layers-{layers}", files, "plan", "{root}/c/config.json")
        add(f"shapes-layers-{layers}", files, "shapes", "{root}/c/config.json")
        add(
            f"check-budget-layers-{layers}",
            files,
            "check",
            "{root}/c",
            "--budget",
            "8xH100-80GB",
            "--context",
            "4096",
        )
    moe = {"c/config.json": json.dumps({**DEEPSEEK, "num_hidden_layers": 10**18}).encode()}
    add("mem-moe-layers-1e18", moe, "mem", "{root}/c/config.json")
    add("plan-moe-layers-1e18", moe, "plan", "{root}/c/config.json")
    add("check-moe-layers-1e18-pp", moe, "check", "{root}/c", "--target", "vllm:tp=8,pp=7")
    add("mem-training-layers-1e18", {"c/config.json": config(num_hidden_layers=10**18)},
        "mem", "{root}/c/config.json", "--training", "--zero", "3", "--dp", "8")  # fmt: skip
    plain = {"c/config.json": config()}
    add("check-budget-9999999", plain, "check", "{root}/c", "--budget", "9999999xH100-80GB")
    add("mem-budget-9999999", plain, "mem", "{root}/c/config.json", "--budget",
        "9999999xH100-80GB")  # fmt: skip
    add("plan-max-gpus-huge", plain, "plan", "{root}/c/config.json", "--max-gpus", "1000000000",
        usage=True)  # fmt: skip
    # degrees above 1024 are usage errors in every command (issue 23); 1024 itself is checked
    add("check-target-tp-1e9", plain, "check", "{root}/c", "--target", "vllm:tp=1000000000",
        usage=True)  # fmt: skip
    add("check-target-pp-1e9", plain, "check", "{root}/c", "--target",
        "megatron:tp=1,pp=1000000000,ep=1000000000", usage=True)  # fmt: skip
    add("check-target-tp-1024", plain, "check", "{root}/c", "--target", "vllm:tp=1024")
    add("check-target-pp-1024", plain, "check", "{root}/c", "--target",
        "megatron:tp=1,pp=1024,ep=1024,cp=1024")  # fmt: skip
    add("mem-tp-1e9", plain, "mem", "{root}/c/config.json", "--tp", "1000000000", usage=True)
    add(
        "py-mha-heads-1e12",
        {"m.py": b"from torch import nn\nattn = nn.MultiheadAttention(embed_dim=768,"
         b" num_heads=10**12)\n"},
        "check", "{root}/m.py",
    )  # fmt: skip
    # --- memoised constants, iterative expression walks ---
    doubling = "".join(f"A{i} = A{i - 1} + A{i - 1}\n" for i in range(1, 41))
    add(
        "py-constants-doubling-40",
        {"m.py": f"from torch import nn\nA0 = 1\n{doubling}layer = nn.Linear(A40, 8)\n"
         f"attn = nn.MultiheadAttention(A40, 3)\n".encode()},
        "check", "{root}/m.py",
    )  # fmt: skip
    ones = "+".join(["1"] * 10_000)
    add("py-sum-10000-terms", {"m.py": f"from torch import nn\nlayer = nn.Linear({ones}, 8)\n"
        f"H = {ones}\nattn = nn.MultiheadAttention(H, 3)\n".encode()},
        "check", "{root}/m.py")  # fmt: skip
    add("py-config-sum-10000-terms", {"m.py": f"from transformers import LlamaConfig\n"
        f"c = LlamaConfig(hidden_size={ones}, num_attention_heads=3)\n".encode()},
        "check", "{root}/m.py")  # fmt: skip
    nest = "(" * 5000 + "1" + ")" * 5000
    add("py-parens-5000", {"m.py": f"from torch import nn\nlayer = nn.Linear({nest}, 8)\n"
        .encode()}, "check", "{root}/m.py")  # fmt: skip
    # --- integers kept as integers ---
    keys = [
        "hidden_size", "intermediate_size", "num_attention_heads", "num_key_value_heads",
        "num_hidden_layers", "vocab_size", "max_position_embeddings", "head_dim",
    ]  # fmt: skip
    for key in keys:
        files = {"c/config.json": config(**{key: HUGE})}
        add(f"check-huge-{key}", files, "check", "{root}/c", "--fix", "--unsafe-fixes",
            "--budget", "8xH100-80GB", "--context", "4096", "--target", "vllm:tp=8,pp=2",
            "--extend-select", "DL203")  # fmt: skip
        add(f"mem-huge-{key}", files, "mem", "{root}/c/config.json", "--training")
        add(f"plan-huge-{key}", files, "plan", "{root}/c/config.json")
        add(f"shapes-huge-{key}", files, "shapes", "{root}/c/config.json")
    for key, value in (
        ("rope_scaling", {"rope_type": "linear", "factor": HUGE}),
        ("rope_scaling", {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings":
                          HUGE}),
        ("partial_rotary_factor", HUGE),
        ("num_local_experts", HUGE),
        ("num_experts_per_tok", HUGE),
        ("sliding_window", HUGE),
        ("layer_types", ["full_attention"] * 3),
        ("bos_token_id", HUGE),
        ("tie_word_embeddings", HUGE),
    ):  # fmt: skip
        files = {"c/config.json": config(**{key: value})}
        add(f"check-huge-{key}-{len(cases)}", files, "check", "{root}/c", "--fix",
            "--unsafe-fixes", "--context", "4096", "--budget", "8xH100-80GB", "--target",
            "vllm:tp=8")  # fmt: skip
        add(f"mem-huge-{key}-{len(cases)}", files, "mem", "{root}/c/config.json")
    ds = dict.fromkeys(("n_routed_experts", "kv_lora_rank", "qk_rope_head_dim", "n_group"), HUGE)
    for key, value in ds.items():
        files = {"c/config.json": json.dumps({**DEEPSEEK, key: value}).encode()}
        add(f"check-deepseek-huge-{key}", files, "check", "{root}/c", "--fix", "--unsafe-fixes",
            "--target", "vllm:tp=8,ep=8", "--budget", "8xH100-80GB")  # fmt: skip
        add(f"mem-deepseek-huge-{key}", files, "mem", "{root}/c/config.json")
    for name, text in (
        ("long-digits", LONG_DIGITS),
        ("long-digits-string", f'"{LONG_DIGITS}"'),
        ("long-float", LONG_DIGITS + ".5"),
        ("float-1e400", "1e400"),
        ("hidden-1e35", "1" + "0" * 35),
    ):
        files = {"c/config.json": raw_config('"hidden_size": 3584', f'"hidden_size": {text}')}
        add(f"check-{name}", files, "check", "{root}/c", "--fix", "--unsafe-fixes",
            "--context", "4096", "--budget", "8xH100-80GB")  # fmt: skip
        add(f"mem-{name}", files, "mem", "{root}/c/config.json")
        add(f"plan-{name}", files, "plan", "{root}/c/config.json")
        add(f"shapes-{name}", files, "shapes", "{root}/c/config.json")
    for name, value in (("layers-neg2", {"num_hidden_layers": -2}),
                        ("kv-heads-0", {"num_key_value_heads": 0})):  # fmt: skip
        files = {"c/config.json": config(**value)}
        for command in ("mem", "plan", "shapes"):
            add(f"{command}-{name}", files, command, "{root}/c/config.json")
    nan = raw_config('"max_position_embeddings": 32768', '"max_position_embeddings": NaN')
    add("check-positions-nan-context", {"c/config.json": nan}, "check", "{root}/c", "--context",
        "4096")  # fmt: skip
    add("mem-positions-nan-context", {"c/config.json": nan}, "mem", "{root}/c/config.json",
        "--context", "4096")  # fmt: skip
    deep = json.dumps(QWEN2)[:-1] + ', "text_config": ' + nested(1000) + "}"
    for command in ("check", "mem", "plan", "shapes"):
        target = "{root}/c" if command == "check" else "{root}/c/config.json"
        add(f"{command}-nested-1000", {"c/config.json": deep.encode()}, command, target)
    for bad in ([["a"]], [{"a": 1}], [["full_attention"], {"x": 1}]):
        add(f"check-layer-types-{json.dumps(bad)}", {"c/config.json": config(
            num_hidden_layers=len(bad), layer_types=bad)}, "check", "{root}/c")  # fmt: skip
    add("check-dl006-layers-1e8", {"c/config.json": config(num_hidden_layers=10**8)}, "check",
        "{root}/c", "--extend-select", "DL006", limit=30.0)  # fmt: skip
    # --- Python front end literals and encodings ---
    for name, source in (
        ("coding-undefined", b"# coding: undefined\nfrom torch import nn\nx = nn.Linear(8, 8)\n"),
        ("coding-unicode-escape", b"# -*- coding: unicode_escape -*-\nfrom torch import nn\n"
         b"x = nn.Linear(8, 8)\n"),
        ("coding-rot13", b"# coding: rot13\nsebz gbepu vzcbeg aa\n"),
        ("str-bytes-concat", b"from torch import nn\nX = 'a' b'b'\nx = nn.Linear(8, 8)\n"),
        ("nul-in-string", b"from torch import nn\nX = 'a\x00b'\nx = nn.Linear(8, 8)\n"),
        ("nul-in-code", b"from torch import nn\nx = nn.Linear(8, 8)\x00\n"),
        ("long-literal", f"from torch import nn\nx = nn.Linear({LONG_DIGITS}, 8)\n".encode()),
        ("huge-power", b"from torch import nn\nx = nn.Linear(10**10**10, 8)\n"),
        ("huge-shift", b"from torch import nn\nx = nn.Linear(1 << 10**12, 8)\n"),
        ("huge-mul", b"from torch import nn\nH = 10**4000\nx = nn.Linear(H*H*H*H*H, 8)\n"),
        ("huge-config", f"from transformers import LlamaConfig\nc = LlamaConfig(hidden_size="
         f"10**400, intermediate_size={LONG_DIGITS}, num_hidden_layers=10**18)\n".encode()),
    ):  # fmt: skip
        add(f"py-{name}", {"m.py": source}, "check", "{root}/m.py")
    # --- checkpoints and tokenizers beside a config ---
    small = {**QWEN2, "hidden_size": 8, "intermediate_size": 16, "num_attention_heads": 2,
             "num_key_value_heads": 1, "num_hidden_layers": 1, "vocab_size": 16}  # fmt: skip
    small_cfg = json.dumps(small).encode()

    def checkpoint(name: str, header: Any, data: bytes = b"") -> None:
        add(f"ckpt-{name}", {"c/config.json": small_cfg, "c/model.safetensors":
            safetensors(header, data)}, "check", "{root}/c")  # fmt: skip
        add(f"plan-ckpt-{name}", {"c/config.json": small_cfg, "c/model.safetensors":
            safetensors(header, data)}, "plan", "{root}/c")  # fmt: skip

    embed = "model.embed_tokens.weight"
    checkpoint("dtype-list", {embed: {"dtype": ["F32"], "shape": [16, 8], "data_offsets":
               [0, 512]}}, bytes(512))  # fmt: skip
    checkpoint("dtype-dict", {embed: {"dtype": {"a": 1}, "shape": [16, 8], "data_offsets":
               [0, 512]}}, bytes(512))  # fmt: skip
    checkpoint("shape-400-digits", {embed: {"dtype": "F32", "shape": [10**400, 8],
               "data_offsets": [0, 512]}}, bytes(512))  # fmt: skip
    checkpoint("offsets-400-digits", {embed: {"dtype": "F32", "shape": [16, 8],
               "data_offsets": [0, 10**400]}}, bytes(512))  # fmt: skip
    checkpoint("zero-byte", {embed: {"dtype": "F32", "shape": [0, 8], "data_offsets": [0, 0]}})
    checkpoint("all-zero-bytes", {embed: {"dtype": "BF16", "shape": [16, 0], "data_offsets":
               [0, 0]}, "lm_head.weight": {"dtype": "F32", "shape": [0], "data_offsets":
               [0, 0]}})  # fmt: skip
    checkpoint("nested-header", nested(100_000).encode())
    checkpoint("metadata-nested", ('{"__metadata__":' + nested(100_000) + "}").encode())
    checkpoint("metadata-huge-int", {"__metadata__": {"format": HUGE}})
    index = {"metadata": {"total_size": 10**400}, "weight_map": {embed: "model.safetensors"}}
    for name, value in (
        ("total-size-400-digits", json.dumps(index).encode()),
        ("total-size-float", json.dumps({**index, "metadata": {"total_size": 1e300}}).encode()),
        ("index-nested", nested(100_000).encode()),
        ("index-weight-map-nested", ('{"weight_map":' + nested(100_000) + "}").encode()),
        ("index-weight-map-list", b'{"weight_map": [1, 2]}'),
        ("index-shard-int", b'{"weight_map": {"a": 5}}'),
    ):
        add(f"ckpt-{name}", {"c/config.json": small_cfg, "c/model.safetensors.index.json": value,
            "c/model.safetensors": safetensors({embed: {"dtype": "F32", "shape": [16, 8],
            "data_offsets": [0, 512]}}, bytes(512))}, "check", "{root}/c")  # fmt: skip
    for name, tokenizer in (
        ("added-tokens-int", {"tokenizer.json": b'{"added_tokens": 5}'}),
        ("added-tokens-str", {"tokenizer.json": b'{"added_tokens": "abc", "model": 3}'}),
        ("tokenizer-nested", {"tokenizer.json": nested(100_000).encode()}),
        ("tokenizer-huge-id", {"tokenizer.json": json.dumps({"model": {"vocab": {"a": HUGE}},
         "added_tokens": [{"id": HUGE, "content": "x"}]}).encode()}),
        ("tokenizer-config-nested", {"tokenizer_config.json": nested(100_000).encode()}),
        ("tokenizer-config-long-key", {"tokenizer_config.json": json.dumps(
            {"added_tokens_decoder": {LONG_DIGITS: {"content": "x"}}}).encode()}),
        ("added-tokens-json-nested", {"added_tokens.json": nested(100_000).encode()}),
    ):  # fmt: skip
        add(f"tok-{name}", {"c/config.json": small_cfg, **{f"c/{k}": v for k, v in
            tokenizer.items()}}, "check", "{root}/c")  # fmt: skip
    # --- settings ---
    for name, text in (
        ("nested", "[tool.dimlint]\nx = " + "[" * 5000 + "]" * 5000 + "\n"),
        ("huge-int", f"[tool.dimlint]\nper-file-ignores = {{a = {10**400}}}\n"),
    ):
        add(f"settings-{name}", {"pyproject.toml": text.encode(), "c/config.json": small_cfg},
            "check", "{root}/c", usage=True)  # fmt: skip
    return cases


CASES = _cases()


def _time_all() -> None:
    """Time each case in a fresh process; print a Markdown table."""
    import os
    import subprocess
    import sys
    import tempfile
    import time

    wanted = sys.argv[1:]
    root = Path(os.environ.get("DIMLINT_ROOT") or Path(__file__).resolve().parent.parent)
    print("| case | exit | seconds | last line |\n| --- | --- | --- | --- |")
    for case in CASES:
        if wanted and not any(w in case.name for w in wanted):
            continue
        with tempfile.TemporaryDirectory() as folder:
            argv = case.build(Path(folder))
            start = time.perf_counter()
            try:
                done = subprocess.run(
                    [sys.executable, "-m", "dimlint", *argv], capture_output=True, text=True,
                    timeout=float(os.environ.get("CASE_TIMEOUT", "20")), cwd=folder,
                    env={**os.environ, "PYTHONPATH": str(root)}, check=False,
                )  # fmt: skip
                code, last = str(done.returncode), (done.stderr or done.stdout).strip()
                last = last.splitlines()[-1][:90] if last else ""
            except subprocess.TimeoutExpired:
                code, last = "timeout", ""
            seconds = time.perf_counter() - start
            print(
                f"| {case.name} | {code} | {seconds:.2f} | {last.replace('|', '/')} |", flush=True
            )


if __name__ == "__main__":
    _time_all()
