"""Compare dimlint's memory arithmetic with llm-analysis and accelerate on released configs.

What each tool reports for parameters, bf16 weights, the KV cache at a context, and training
memory with mixed-precision Adam, next to a reference:

* parameters: the model transformers builds on the meta device (``sum(p.numel())``, tied
  weights once) — exact;
* bf16 weights: parameters × 2 bytes;
* KV cache: vLLM's layout, written out per model below (GQA heads, MLA latent, sliding
  window), for one sequence of ``--context`` tokens in bf16;
* training: weights + gradients + Adam states with fp32 master weights, 16 bytes a parameter
  (ZeRO paper), before activations.

The tools live in different environments (llm-analysis pins transformers < 5), so each is run
in the interpreter given on the command line, fed the configs as JSON on stdin:

    python bench/compare_memory.py --llm-analysis-python /tmp/llmvenv/bin/python \\
        --accelerate-python /tmp/accvenv/bin/python

The accelerate interpreter must also import transformers ≥ 5 and torch (it builds the models on
the meta device for the reference too). A tool that is not available gets an "n/a" column.
Writes bench/memory_comparison.md and prints the same table.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dimlint.config.normalize import specs_for_document  # noqa: E402
from dimlint.memory import kv_cache_bytes, model_parameters, training_states  # noqa: E402

GIB = 1024**3

#: DOMAIN.md's values (released config.json keys).
MODELS: dict[str, dict[str, Any]] = {
    "Llama-3-8B": {
        "model_type": "llama",
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "vocab_size": 128256,
        "max_position_embeddings": 8192,
    },
    "Llama-3-70B": {
        "model_type": "llama",
        "hidden_size": 8192,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "intermediate_size": 28672,
        "num_hidden_layers": 80,
        "vocab_size": 128256,
        "max_position_embeddings": 8192,
    },
    "Qwen2-7B": {
        "model_type": "qwen2",
        "hidden_size": 3584,
        "num_attention_heads": 28,
        "num_key_value_heads": 4,
        "intermediate_size": 18944,
        "num_hidden_layers": 28,
        "vocab_size": 152064,
        "max_position_embeddings": 32768,
    },
    "Mixtral-8x7B": {
        "model_type": "mixtral",
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "vocab_size": 32000,
        "num_local_experts": 8,
        "num_experts_per_tok": 2,
        "max_position_embeddings": 32768,
    },
    "DeepSeek-V3": {
        "model_type": "deepseek_v3",
        "hidden_size": 7168,
        "num_attention_heads": 128,
        "num_key_value_heads": 128,
        "intermediate_size": 18432,
        "moe_intermediate_size": 2048,
        "num_hidden_layers": 61,
        "vocab_size": 129280,
        "n_routed_experts": 256,
        "n_shared_experts": 1,
        "num_experts_per_tok": 8,
        "first_k_dense_replace": 3,
        "q_lora_rank": 1536,
        "kv_lora_rank": 512,
        "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128,
        "v_head_dim": 128,
        "max_position_embeddings": 163840,
    },
    "Gemma-2-9B": {
        "model_type": "gemma2",
        "hidden_size": 3584,
        "num_attention_heads": 16,
        "num_key_value_heads": 8,
        "head_dim": 256,
        "intermediate_size": 14336,
        "num_hidden_layers": 42,
        "vocab_size": 256000,
        "sliding_window": 4096,
        "max_position_embeddings": 8192,
    },
}


def reference_kv(name: str, config: dict[str, Any], context: int) -> int:
    """vLLM's cache for one sequence in bf16, written out per architecture."""
    layers = config["num_hidden_layers"]
    if name == "DeepSeek-V3":  # one latent of kv_lora_rank + rope dims per token and layer
        return layers * (512 + 64) * context * 2
    head_dim = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
    per_layer_token = 2 * config["num_key_value_heads"] * head_dim * 2
    if name == "Gemma-2-9B":  # every other layer holds at most the 4096-token window
        local = layers // 2
        return per_layer_token * ((layers - local) * context + local * min(context, 4096))
    return per_layer_token * layers * context


TRANSFORMERS_PROBE = r"""
import json, sys, warnings
warnings.filterwarnings("ignore")
import torch
from transformers import AutoConfig, AutoModelForCausalLM
from transformers.utils import logging
logging.set_verbosity_error()
try:
    from accelerate.utils import calculate_maximum_sizes
    from accelerate.commands.estimate import estimate_training_usage
except ImportError:
    calculate_maximum_sizes = None
out = {}
for name, config in json.load(sys.stdin).items():
    kwargs = {k: v for k, v in config.items() if k != "model_type"}
    cfg = AutoConfig.for_model(config["model_type"], **kwargs)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(cfg)
    row = {"params": sum(p.numel() for p in model.parameters())}
    if calculate_maximum_sizes is not None:
        total, _ = calculate_maximum_sizes(model)  # fp32 bytes of parameters and buffers
        row["weights_fp16"] = total / 2  # what `accelerate estimate-memory` shows for float16
        row["training"] = max(estimate_training_usage(total, "float16").values())
    out[name] = row
print(json.dumps(out))
"""

LLM_ANALYSIS_PROBE = r"""
import json, logging, sys
logging.disable(logging.CRITICAL)
from llm_analysis.analysis import DSZeRO, LLMAnalysis
from llm_analysis.config import ModelConfig, get_dtype_config_by_name, get_gpu_config_by_name
request = json.load(sys.stdin)
context = request["context"]
out = {}
for name, config in request["models"].items():
    hidden = config["hidden_size"]
    experts = config.get("num_local_experts") or config.get("n_routed_experts") or 1
    ffn = config.get("moe_intermediate_size") or config["intermediate_size"]
    model = ModelConfig(
        name=name,
        num_layers=config["num_hidden_layers"],
        n_head=config["num_attention_heads"],
        hidden_dim=hidden,
        vocab_size=config["vocab_size"],
        max_seq_len=max(context, config.get("max_position_embeddings", context)),
        num_key_value_heads=config.get("num_key_value_heads"),
        ffn_embed_dim=ffn,
        expansion_ratio=ffn / hidden,
        moe_num_experts=experts,
        moe_top_k=config.get("num_experts_per_tok", 1),
    )
    analysis = LLMAnalysis(
        model, get_gpu_config_by_name("h100-sxm-80gb"), get_dtype_config_by_name("w16a16e16")
    )
    layers = model.num_layers
    kv = analysis.get_memory_kv_cache_per_layer(1, context, 2) * layers
    weights = (
        analysis.get_memory_embedding(DSZeRO.NONE)
        + analysis.get_weight_memory_per_layer(DSZeRO.NONE) * layers
        + analysis.get_weight_memory_last_layernorm(DSZeRO.NONE)
    )
    # what training() adds up before it checks the batch fits (master weights in fp32)
    zero = DSZeRO.NONE
    optimizer, gradients = analysis.get_memory_optimizer_state_and_gradient_per_layer(4, None, zero)
    embedding = analysis.get_memory_optimizer_state_and_gradient_embedding(4, None, zero)
    last = analysis.get_memory_optimizer_state_and_gradient_last_layernorm(4, None, zero)
    states = (optimizer + gradients) * layers + sum(embedding) + sum(last)
    out[name] = {
        "params": analysis.get_num_params_total(),
        "weights": weights,
        "kv": kv,
        "training": weights + states,
    }
print(json.dumps(out))
"""


def run_probe(python: str | None, code: str, payload: Any) -> dict[str, Any] | None:
    if not python:
        return None
    done = subprocess.run(
        [python, "-c", code],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
    )
    if done.returncode != 0:
        print(f"{python}: probe failed:\n{done.stderr[-2000:]}", file=sys.stderr)
        return None
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def dimlint_row(config: dict[str, Any], context: int) -> dict[str, float]:
    specs = specs_for_document("config.json", config)
    params = model_parameters(specs)
    return {
        "params": params.total,
        "weights": 2 * params.total,
        "kv": kv_cache_bytes(specs[0], context=context, batch=1, kv_dtype="bf16"),
        "training": sum(training_states(params, dtype="bf16")),
    }


def cell(value: float | None, reference: float, unit: str) -> str:
    if value is None:
        return "n/a"
    text = f"{value:,.0f}" if unit == "params" else f"{value / GIB:,.2f} GiB"
    if value == reference:
        return f"{text} (exact)"
    error = (value - reference) / reference * 100
    return f"{text} ({error:+.1f}%)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--context", type=int, default=8192)
    parser.add_argument("--llm-analysis-python", default=None)
    parser.add_argument("--accelerate-python", default=None, help="also builds the references")
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "memory_comparison.md")
    args = parser.parse_args(argv)
    context = args.context
    reference_source = run_probe(
        args.accelerate_python or sys.executable, TRANSFORMERS_PROBE, MODELS
    )
    llm = run_probe(
        args.llm_analysis_python, LLM_ANALYSIS_PROBE, {"context": context, "models": MODELS}
    )
    if reference_source is None:
        print("the reference needs transformers and torch in --accelerate-python", file=sys.stderr)
        return 2
    lines = [
        f"Context {context:,} tokens, batch 1, bf16 weights and KV cache; training = weights +"
        " gradients + Adam states (no activations). Percentages are errors against the"
        " reference.",
        "",
        "| model | quantity | reference | dimlint | llm-analysis 0.2.2 | accelerate |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, config in MODELS.items():
        truth = reference_source[name]
        params = truth["params"]
        ours = dimlint_row(config, context)
        theirs = (llm or {}).get(name, {})
        has_accelerate = "weights_fp16" in truth
        reference = {
            "params": params,
            "weights": 2 * params,
            "kv": reference_kv(name, config, context),
            "training": 16 * params,
        }
        accelerate = {
            "params": truth["weights_fp16"] / 2 if has_accelerate else None,
            "weights": truth.get("weights_fp16"),
            "kv": None,
            "training": truth.get("training"),
        }
        for key, label in (
            ("params", "parameters"),
            ("weights", "bf16 weights"),
            ("kv", f"KV cache @ {context:,}"),
            ("training", "training states (Adam)"),
        ):
            unit = "params" if key == "params" else "bytes"
            accelerate_cell = cell(accelerate[key], reference[key], unit)
            if key == "kv" and has_accelerate:
                accelerate_cell = "not computed"
            lines.append(
                f"| {name} | {label} | {cell(reference[key], reference[key], unit).split(' (')[0]}"
                f" | {cell(ours[key], reference[key], unit)}"
                f" | {cell(theirs.get(key), reference[key], unit)}"
                f" | {accelerate_cell} |"
            )
    text = "\n".join(lines) + "\n"
    print(text)
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
