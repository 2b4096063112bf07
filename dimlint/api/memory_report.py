"""The ``mem`` report of one config: parameters, weights, KV cache, memory per GPU.

``dimlint mem --output-format json`` prints what :func:`report` returns and ``dimlint.memory``
returns it to Python (one code path); the contract (DESIGN.md, *mem / plan JSON*) is described
in :mod:`dimlint.commands.mem`. The options arrive as an ``argparse.Namespace`` (the command's
arguments, or the API's keywords in one) and :func:`apply_settings` fills what they leave open.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from dimlint.config.spec import ModelSpec
from dimlint.errors import UsageError
from dimlint.sources.source import Source

if TYPE_CHECKING:
    from dimlint.lint.model_input import ModelInput

ESTIMATED = ["activations", "overhead"]


def load_document(path: Source, args: argparse.Namespace) -> tuple[str, list[ModelSpec]]:
    """The specs of the config at ``path``, read by the front end every command shares
    (:func:`dimlint.lint.model_input.read_model`): errors are findings, not numbers."""
    model = load_model(path, args)
    return model.path, model.specs


def load_model(path: Source, args: argparse.Namespace) -> ModelInput:
    """:func:`load_document` with what the front end found (``errors`` under ``--force``)."""
    from dimlint.lint.model_input import read_model

    model = read_model(
        path,
        getattr(args, "config", None),
        getattr(args, "no_config", False),
        force=bool(getattr(args, "force", False)),
    )
    if not any(spec.hidden is not None or _templated(spec) for spec in model.specs):
        raise UsageError(f"{model.path}: no hidden size found: is this a model config?")
    return model


def _templated(spec: ModelSpec) -> bool:
    """Whether the shape templates count ``spec``'s model type: a convolutional network
    (EfficientNet, ResNet) states no hidden size, yet its parameters are known exactly."""
    from dimlint.memory.parameters.templates import row

    return bool(spec.known_type and (row(spec.model_type) or {}).get("classes"))


def label_invalid(result: dict[str, Any], model: ModelInput) -> dict[str, Any]:
    """Mark a result computed with ``--force`` from a config with errors: ``invalid`` holds
    the label and the errors (code, message, line), first in the dict; absent otherwise."""
    if not model.errors:
        return result
    from dimlint.lint.model_input import invalid_model_note

    invalid = {
        "note": invalid_model_note(model.errors),
        "errors": [
            {
                "code": d.code,
                "message": d.message,
                "line": d.span.start_pos.line if d.span else None,
                "pointer": d.pointer,
            }
            for d in model.errors
        ],
    }
    return {"invalid": invalid, **result}


def _layer_counts(spec: ModelSpec) -> dict[str, int]:
    from dimlint.memory.config_view import Cfg
    from dimlint.memory.parameters.layer_kinds import cache_plan

    counts: dict[str, int] = {}
    for _index, layer, count in cache_plan(Cfg(spec)):
        if layer.kind == "kv":
            name = "full_attention" if layer.window is None else "windowed_attention"
        else:
            name = {"latent": "latent_attention", "state": "recurrent_state"}.get(
                layer.kind, "no_cache"
            )
        counts[name] = counts.get(name, 0) + count
    return counts


def _quantization_label(specs: list[ModelSpec], dtype: str) -> str | None:
    from dimlint.memory.dtypes import dtype_bytes
    from dimlint.memory.weights import quantized_bytes_per_weight

    if dtype_bytes(dtype) >= 2:
        return None
    config = specs[0].raw.get("quantization_config")
    if not isinstance(config, dict):
        return None
    from dimlint.memory.estimates import stored_layout

    per_weight = quantized_bytes_per_weight(config)
    method = config.get("quant_method", "unknown")
    if per_weight is None:
        return f"{method} (not recognised: counted as {dtype})"
    label = f"{method}, {per_weight * 8:.3g} bits per quantized weight"
    layout = stored_layout(specs, config)
    if layout is not None:
        label += (
            f"; {layout.kept_params:,} parameters left unquantized in {layout.kept_dtype}"
            " (embeddings, head, norms, routers and the modules the config skips)"
        )
    return label


def report(
    path: str,
    specs: list[ModelSpec],
    args: argparse.Namespace,
) -> dict[str, Any]:
    """The ``mem`` JSON object for one document."""
    from dimlint.memory import (
        kv_bytes_per_token,
        kv_cache_bytes,
        language_spec,
        model_parameters,
        serving_memory,
    )
    from dimlint.memory.config_view import Cfg
    from dimlint.memory.dtypes import dtype_bytes, stated_dtype
    from dimlint.memory.estimates import model_weight_bytes

    lm = language_spec(specs)
    dtype = args.dtype or stated_dtype(specs[0].raw)
    kv_dtype = args.kv_dtype or (dtype if dtype_bytes(dtype) >= 2 else "bf16")
    context, batch, tp, pp = args.context, args.batch, args.tp, args.pp
    params = model_parameters(specs)
    notes = list(params.notes)
    max_positions = Cfg(lm).max_positions
    if max_positions and context > max_positions:
        notes.append(
            f"context {context} exceeds max_position_embeddings {max_positions}: computed"
            " anyway (DL502 in `dimlint check --context` refuses it)"
        )
    serving = serving_memory(
        specs, context=context, batch=batch, dtype=dtype, kv_dtype=kv_dtype, tp=tp, pp=pp
    )
    result: dict[str, Any] = {
        "path": path,
        "model_type": specs[0].model_type,
        "params": {
            "total": params.total,
            "active": params.active,
            "embedding": params.embedding,
            "exact": params.exact,
            "components": [{"name": name, "params": count} for name, count in params.components],
        },
        "weights": {
            "dtype": dtype,
            "bytes": model_weight_bytes(specs, dtype, params),
            "quantization": _quantization_label(specs, dtype),
        },
        "kv_cache": {
            "dtype": kv_dtype,
            "context": context,
            "batch": batch,
            "bytes": kv_cache_bytes(lm, context=context, batch=batch, kv_dtype=kv_dtype),
            "bytes_per_token": kv_bytes_per_token(lm, kv_dtype),
            "layers": _layer_counts(lm),
        },
        "per_gpu": {
            "tp": tp,
            "pp": pp,
            "weights": serving.weights,
            "kv_cache": serving.kv_cache,
            "activations": serving.activations,
            "overhead": serving.overhead,
            "total": serving.total,
            "estimated": ESTIMATED,
        },
        "training": None,
        "budget": None,
        "notes": notes,
    }
    if args.training:
        result["training"] = _training(specs, args, dtype)
        note = _attention(specs, args)[1]
        if note:
            notes.append(note)
    layout = getattr(args, "layout", None)
    if layout:
        notes.append(layout)
    if args.budget:
        result["budget"] = _budget(args.budget, result)
        if args.training:
            result["budget"]["longest_seq"] = _longest_seq(specs, args, dtype, result["budget"])
    refused = layout_refusals(specs, tp, pp)
    result["refused_by"] = refused
    notes.extend(
        f"{engine} refuses tp {tp} × pp {pp}: {reason}" for engine, reason in refused.items()
    )
    return result


def _setup(args: argparse.Namespace) -> Any:
    """How the model is trained (:func:`apply_settings` resolved it from the settings' and the
    command line's training keys)."""
    from dimlint.deploy.training import TrainingSetup

    found = getattr(args, "training_setup", None)
    return found if found is not None else TrainingSetup()


def _attention(specs: list[ModelSpec], args: argparse.Namespace) -> tuple[str, str | None]:
    """The attention implementation counted, and why when it is not the one asked for."""
    from dimlint.deploy.training import attention_of

    return attention_of(specs, _setup(args))


def _plan(specs: list[ModelSpec], args: argparse.Namespace, dtype: str, seq: int) -> Any:
    """One training step: :func:`dimlint.deploy.training.step`, as ``plan`` and DL501 size it."""
    from dimlint.deploy.training import step

    return step(
        specs,
        _setup(args),
        dtype=dtype,
        tp=args.tp,
        pp=args.pp,
        dp=args.dp,
        batch=args.batch,
        seq=seq,
    )


def _training(specs: list[ModelSpec], args: argparse.Namespace, dtype: str) -> dict[str, Any]:
    """The ``training`` object: :mod:`dimlint.memory.training.training_plan`'s plan, by part."""
    from dimlint.deploy.training import finetune_of

    setup = _setup(args)
    finetune = finetune_of(setup)
    plan = _plan(specs, args, dtype, args.context)
    return {
        "dtype": dtype,
        "method": finetune.method,
        "lora_rank": finetune.rank or None,
        "lora_targets": list(finetune.targets) if finetune.method != "full" else None,
        "trainable_params": plan.trainable,
        "optimizer": setup.optimizer,
        "zero": setup.zero,
        "offload": setup.offload,
        "dp": args.dp,
        "tp": args.tp,
        "pp": args.pp,
        "gpus": args.tp * args.pp * args.dp,
        "micro_batch": args.batch,
        "seq": args.context,
        "recompute": setup.recompute,
        "attention": _attention(specs, args)[0],
        "weights": plan.weights,
        "gradients": plan.gradients,
        "optimizer_states": plan.optimizer,
        "zero3_gathered": plan.gathered,
        "activations": plan.activations,
        "overhead": plan.overhead,
        "total": plan.total,
        "cpu_offloaded": plan.cpu,
        "estimated": ESTIMATED,
    }


def _longest_seq(
    specs: list[ModelSpec], args: argparse.Namespace, dtype: str, budget: dict[str, Any]
) -> int:
    """The longest training sequence (at the micro-batch) that fits the budget's GPU, up to the
    model's longest context; 0 when not even one token does (``plan --training`` and DL501
    search the same way, :func:`dimlint.deploy.training.longest_seq`)."""
    from dimlint.deploy.fit import default_context
    from dimlint.deploy.training import longest_seq
    from dimlint.memory import language_spec

    if budget["gpus_needed"] > budget["count"]:
        return 0
    return longest_seq(
        specs,
        _setup(args),
        usable=budget["usable_bytes"],
        upper=max(args.context, default_context(language_spec(specs))),
        dtype=dtype,
        tp=args.tp,
        pp=args.pp,
        dp=args.dp,
        batch=args.batch,
    )


def layout_refusals(specs: list[ModelSpec], tp: int, pp: int) -> dict[str, str]:
    """``{engine: why}`` for each engine of ``dimlint plan`` that refuses this layout: the
    memory of a layout no engine can run is only half an answer."""
    if tp == 1 and pp == 1:
        return {}
    from dimlint.deploy.engines import ENGINES, PLAN_ENGINES, pp_refusals, tp_refusals
    from dimlint.deploy.fit import language_model

    model = language_model(tuple(specs))
    found: dict[str, str] = {}
    for name in PLAN_ENGINES:
        engine = ENGINES[name]
        reasons = [*tp_refusals(engine, model, tp), *pp_refusals(engine, model, pp)]
        if reasons:
            found[engine.label] = "; ".join(r.summary for r in reasons)
    return found


def _budget(text: str, result: dict[str, Any]) -> dict[str, Any]:
    from dimlint.memory import GPU_MEMORY_UTILIZATION, parse_budget

    try:
        count, gpu = parse_budget(text)
    except ValueError as error:
        raise UsageError(str(error)) from None
    usable = gpu.usable_bytes()
    utilization = GPU_MEMORY_UTILIZATION
    per_gpu = result["per_gpu"]
    gpus = per_gpu["tp"] * per_gpu["pp"]
    total = per_gpu["total"]
    training = result["training"]
    if training:  # the budget is judged for the run asked for: the training step
        from dimlint.deploy.training import usable_bytes

        gpus = training["tp"] * training["pp"] * training["dp"]
        total = training["total"]
        usable, utilization = usable_bytes(gpu), 1.0  # a training step may fill the device
    return {
        "budget": text,
        "gpu": gpu.name,
        "count": count,
        "memory_bytes": gpu.memory_bytes,
        "gpu_memory_utilization": utilization,
        "usable_bytes": usable,
        "gpus_needed": gpus,
        "judged": "training" if training else "serving",
        "fits": total <= usable and gpus <= count,
    }


def apply_settings(path: str, specs: list[ModelSpec], args: argparse.Namespace) -> None:
    """Fill what the command line left open from the settings file, then from the model:
    the context defaults to vLLM's ``max_model_len`` (the model's own longest), as in ``plan``
    and ``check --budget``; a ``--budget`` is split into tp, pp and dp once
    (:func:`_sharding_plan`)."""
    from dimlint.deploy.fit import default_context
    from dimlint.deploy.training import training_flags
    from dimlint.lint.model_input import ModelInput, deployment_of, settings_for
    from dimlint.memory import language_spec

    settings = settings_for(path, getattr(args, "config", None), getattr(args, "no_config", False))
    found = deployment_of(
        ModelInput(path, specs, settings, []),
        context=args.context,
        batch=args.batch,
        dtype=args.dtype,
        kv_dtype=args.kv_dtype,
        budget=args.budget,
        targets=[],  # mem sizes --tp/--pp; a settings target is check's layout
        training=bool(getattr(args, "training", False)),
        training_options=training_flags(args),
    )
    args.training_setup = found.training
    args.training = found.training is not None
    if found.training is not None and getattr(args, "dp", None) is None:
        args.dp = found.training.dp
    args.budget = found.budget
    args.dtype, args.kv_dtype = found.dtype, found.kv_dtype
    args.batch = found.batch or 1
    args.layout = _sharding_plan(args)
    args.context = found.context or default_context(language_spec(specs))


def _sharding_plan(args: argparse.Namespace) -> str | None:
    """Choose tp, pp and dp once, and say how a budget's GPUs were split (None: as given).

    Serving puts a budget's GPUs into tensor parallelism (one replica, as vLLM's
    ``--tensor-parallel-size``). Training splits them between tp·pp and data parallelism:
    ``tp × pp × dp`` equals the GPU count; what the command line leaves open goes to dp (ZeRO
    shards over dp), so a budget is never applied as tp *and* as dp."""
    from dimlint.memory import parse_budget

    training = bool(getattr(args, "training", False))
    count = None
    if args.budget:
        try:
            count = parse_budget(args.budget)[0]
        except ValueError as error:
            raise UsageError(str(error)) from None
    given = {key: getattr(args, key, None) for key in ("tp", "pp", "dp")}
    if count is None or (not training and (args.tp is not None or args.pp is not None)):
        args.tp, args.pp = args.tp or 1, args.pp or 1
        args.dp = getattr(args, "dp", None) or 1
        return None
    if not training:
        args.tp, args.pp, args.dp = count, 1, getattr(args, "dp", None) or 1
        return None  # the serving header states tp
    args.tp, args.pp = args.tp or 1, args.pp or 1
    if args.dp is None:
        args.dp = max(1, count // (args.tp * args.pp))
    gpus = args.tp * args.pp * args.dp
    if count == 1 and gpus == 1:
        return None
    chosen = [key for key, value in given.items() if value is None]
    how = ""
    if chosen:
        how = f" ({', '.join(chosen)} chosen: give --tp/--pp/--dp to split it otherwise)"
    if gpus > count:
        used = f"needs {gpus} GPUs, the budget has {count}"
    else:
        used = f"uses {gpus} of its {count} GPUs" if gpus < count else f"{count} GPUs"
    return f"budget {args.budget} split as tp {args.tp} × pp {args.pp} × dp {args.dp}: {used}{how}"
