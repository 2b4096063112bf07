"""``dimlint suggest``: propose architectures that pass every rule, as a table or JSON.

Arguments become a :class:`dimlint.fix.suggest.request.Request`; the search and the diagnosis of
impossible requests live in :mod:`dimlint.fix.suggest`. Exit codes: 0 with candidates, 1 when the
request cannot be met (the constraint and the verified relaxations are printed), 2 for usage
errors.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from dimlint.errors import UsageError

DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser], **kw: Any) -> None:
    """The ``suggest`` sub-command and its options (built on every run: imports nothing)."""
    parser = commands.add_parser(
        "suggest", help="propose complete architectures that pass every rule", **kw
    )
    parser.add_argument(
        "--params",
        default=None,
        help="total parameters: 8B, 0.5B, 135M; 'largest' with --budget (or --tokens/--flops)",
    )
    parser.add_argument(
        "--tokens",
        default=None,
        help="training tokens: 15T; without --params, sizes the model at 20 tokens a parameter",
    )
    parser.add_argument(
        "--flops",
        default=None,
        help="training FLOPs (6·N·D): 1e24; without --params, the compute-optimal size",
    )
    parser.add_argument(
        "--train-budget",
        default=None,
        metavar="NxGPU:TIME",
        help="training GPU time: 1024xH100-80GB:30d (or :720h); C = GPUs × peak BF16 × MFU ×"
        " time, used as --flops",
    )
    parser.add_argument(
        "--mfu",
        type=float,
        default=None,
        help="with --train-budget: model FLOPs utilisation (default 0.40, Llama 3's 38-43%%)",
    )
    parser.add_argument("--active", default=None, help="active parameters (MoE): 3B")
    parser.add_argument("--budget", default=None, metavar="NxGPU", help="e.g. 1xH100-80GB")
    parser.add_argument("--context", type=int, default=None, help="tokens per sequence")
    parser.add_argument("--batch", type=int, default=None, help="sequences at once")
    parser.add_argument("--dtype", choices=DTYPES, default=None, help="weights (default bf16)")
    parser.add_argument("--kv-dtype", choices=DTYPES, default=None, help="KV cache format")
    parser.add_argument(
        "--target",
        action="append",
        default=[],
        metavar="SPEC",
        help="repeatable; several degrees per key: vllm:tp=2,4,8 megatron:tp=8,pp=4 fa2 fp8",
    )
    parser.add_argument(
        "--vocab", type=int, default=None, help="tokenizer size (padded to 128 × TP)"
    )
    parser.add_argument("--layers", type=int, default=None)
    parser.add_argument("--head-dim", type=int, default=None)
    parser.add_argument("--hidden", type=int, default=None, help="fixed hidden size")
    parser.add_argument("--heads", type=int, default=None, help="fixed query heads")
    parser.add_argument("--kv-heads", type=int, default=None)
    parser.add_argument("--gqa-ratio", default=None, metavar="N|LOW..HIGH", help="e.g. 4..8")
    parser.add_argument("--moe", default=None, metavar="experts=N,top_k=N[,shared=N]")
    parser.add_argument("--mla", action="store_true", help="multi-head latent attention")
    parser.add_argument(
        "--like",
        default=None,
        metavar="FAMILY|MODEL",
        help="llama (default), qwen2, mistral, gemma2, deepseek_v3; or a model (a config file"
        " in any format check reads, a model folder, a Hub id, a Python file): its family, and"
        " its vocabulary unless --vocab is given",
    )
    parser.add_argument("--top", type=int, default=5, help="candidates shown (default 5)")
    parser.add_argument("--write", default=None, metavar="DIR", help="write #1 as DIR/config.json")
    parser.add_argument("--explain", action="store_true", help="why each value of #1")
    parser.add_argument(
        "--training",
        action="store_true",
        help="a training step must also fit each layout of --budget, as mem --training computes",
    )
    parser.add_argument("--optimizer", choices=("adam", "adam8bit", "sgd"), default="adam")
    parser.add_argument("--zero", type=int, choices=(0, 1, 2, 3), default=0, help="ZeRO stage")
    parser.add_argument("--recompute", choices=("none", "selective", "full"), default="none")
    parser.add_argument(
        "--attention",
        choices=("flash", "sdpa", "eager"),
        default=None,
        help="with --training: attention implementation counted (default: mem's, sdpa, or eager"
        " where transformers refuses sdpa)",
    )
    parser.add_argument("--output-format", choices=("table", "json"), default="table")


def _positive(value: int | None, name: str, high: int = 10**7) -> int | None:
    if value is not None and not 1 <= value <= high:
        raise UsageError(f"{name} {value}: expected an integer from 1 to {high}")
    return value


def _train_budget(args: argparse.Namespace, flops: float | None) -> Any:
    """``--train-budget`` read (:mod:`dimlint.fix.suggest.compute`), or None; ``--mfu`` only
    qualifies it, and it stands for ``--flops``, so the two are not given together."""
    text, mfu = getattr(args, "train_budget", None), getattr(args, "mfu", None)
    if text is None:
        if mfu is not None:
            raise UsageError("--mfu qualifies --train-budget: give that too")
        return None
    if flops is not None:
        raise UsageError("give --flops or --train-budget, not both: the budget is the FLOPs")
    from dimlint.fix.suggest.compute import parse_train_budget

    return parse_train_budget(text, mfu)


def _training(args: argparse.Namespace) -> bool:
    training = bool(getattr(args, "training", False))
    if training and args.budget is None:
        raise UsageError("--training needs --budget: the GPUs a training step must fit")
    if getattr(args, "attention", None) is not None and not training:
        raise UsageError("--attention is what a training step counts: give --training too")
    return training


def _attention(args: argparse.Namespace, family: str, moe: bool) -> str | None:
    """``--attention``, refused where ``mem --training`` refuses it (sdpa for a family whose
    transformers class does not support it, Gemma-2)."""
    from dimlint.fix.suggest.families import FAMILIES
    from dimlint.memory.training.activations import NO_SDPA

    attention: str | None = getattr(args, "attention", None)
    written = FAMILIES[family]
    model_type = written.moe[0] if moe and written.moe else written.model_type
    if attention == "sdpa" and model_type in NO_SDPA:
        raise UsageError(
            f"--attention sdpa: transformers refuses sdpa for {model_type}"
            " (_supports_sdpa = False); use --attention eager (its default) or flash"
        )
    return attention


#: Model types of each family ``suggest`` writes (a ``--like`` model of another type is refused).
LIKE_TYPES = {
    "llama": ("llama",),
    "mistral": ("mistral", "mixtral"),
    "qwen2": ("qwen2", "qwen2_moe"),
    "gemma2": ("gemma2",),
    "deepseek_v3": ("deepseek_v3", "deepseek_v2"),
}


def like_model(like: str | None) -> tuple[str | None, int | None]:
    """``--like``: a family name as it is, or a model read by the one reading of a model
    (:func:`dimlint.lint.model_input.read_model`, as ``check`` and ``mem`` read it: a config
    file in any format and dialect, a model folder, a Hub id, a Python file) — its family, by
    its model type, and its vocabulary (the tokenizer a model like it shares). A family name
    wins over a file of the same name (``./llama`` names the file). A model with error-level
    findings is refused as ``mem`` refuses it; one of a type no family writes is a usage
    error naming the types that are."""
    from dimlint.fix.suggest.families import FAMILIES

    if like is None or like in FAMILIES:
        return like, None
    from dimlint.lint.model_input import read_model
    from dimlint.memory import language_spec

    try:
        model = read_model(like)
    except UsageError as error:  # findings (RejectedInput) pass: shown in the command's format
        raise UsageError(f"--like: {error}") from None
    spec = language_spec(model.specs)
    stated = spec.model_type or ""
    family = next((name for name, types in LIKE_TYPES.items() if stated in types), None)
    if family is None:
        kind = f"a {stated} model" if stated else "a model that states no model type"
        known = ", ".join(t for types in LIKE_TYPES.values() for t in types)
        raise UsageError(
            f"--like {like}: {kind}; suggest writes the families {', '.join(FAMILIES)}"
            f" (a model of type {known}, or the family's name)"
        )
    vocab = spec.vocab.value if spec.vocab is not None else None
    return family, vocab


def build_request(args: argparse.Namespace) -> Any:
    """The request from the arguments; a UsageError names the first bad one."""
    from dimlint.deploy.targets import TargetError, parse_budget_text, parse_target
    from dimlint.fix.suggest.request import (
        FLOPS_PER_PARAM_TOKEN,
        Request,
        compute_optimal,
        expand_target,
        family_for,
        parse_flops,
        parse_moe,
        parse_range,
        parse_size,
    )

    tokens = parse_size(args.tokens, "--tokens", 1e9, 1e15) if args.tokens else None
    flops = parse_flops(args.flops) if args.flops else None
    train_budget = _train_budget(args, flops)
    if train_budget is not None:
        flops = parse_flops(repr(train_budget.flops), f"--train-budget {args.train_budget}")
    if args.params is None and tokens is None and flops is None:
        raise UsageError(
            "give --params, or a training budget with --tokens and/or --flops (or --train-budget)"
        )
    if args.params is not None and tokens is not None and flops is not None:
        raise UsageError(
            "--params, --tokens and --flops (or --train-budget): give at most two (C = 6 · N · D)"
        )
    if args.params == "largest":
        if args.active or tokens or flops:
            raise UsageError(
                "--params largest sizes the model itself: drop --active/--tokens/--flops"
                "/--train-budget"
            )
        params = 10**9  # replaced by the search for the largest that fits (run_suggest)
    elif args.params is not None:
        params = parse_size(args.params)
    elif args.moe is not None:
        raise UsageError(
            "--tokens/--flops size a dense model (Chinchilla's 20 tokens a parameter); for a"
            " mixture-of-experts give --params and --active, with --tokens or --flops for the run"
        )
    else:
        params = compute_optimal(tokens, flops)
        if not 10**6 <= params <= 10**13:
            raise UsageError(
                f"--tokens/--flops give {params:,} parameters: expected between 1M and 10T"
            )
    active = parse_size(args.active, "--active") if args.active else None
    if args.params is not None and flops is not None:
        # C = 6 · N · D counts the parameters each token passes through: the active ones
        tokens = round(flops / (FLOPS_PER_PARAM_TOKEN * (active or params)))
    moe = parse_moe(args.moe) if args.moe else None
    like, like_vocab = like_model(args.like)
    family = family_for(like, args.mla)
    if active is not None and moe is None:
        raise UsageError("--active needs --moe: a dense model's active count is its total")
    if active is not None and active >= params:
        raise UsageError(f"--active {args.active} must be below --params {args.params}")
    if moe is not None and family == "gemma2":
        raise UsageError("--moe with --like gemma2: Gemma-2 has no mixture-of-experts variant")
    if moe is not None and moe.shared and family in ("llama", "mistral"):
        raise UsageError(
            f"--moe shared={moe.shared} with --like {family}: its MoE variant (Mixtral) has no"
            " shared experts; use --like qwen2 or deepseek_v3"
        )
    if moe is not None and not moe.shared and family in ("qwen2", "deepseek_v3"):
        raise UsageError(
            f"--moe without shared=N with --like {family}: its MoE layers always hold shared"
            " experts; add shared=1"
        )
    if family == "deepseek_v3" and moe is None:
        raise UsageError("--like deepseek_v3 / --mla: give --moe experts=N,top_k=N,shared=N")
    if family == "deepseek_v3" and (args.kv_heads or args.head_dim or args.gqa_ratio):
        raise UsageError(
            "--kv-heads/--head-dim/--gqa-ratio do not apply to multi-head latent attention"
        )
    if args.kv_heads is not None and args.gqa_ratio is not None:
        raise UsageError("give --kv-heads or --gqa-ratio, not both")
    if args.head_dim is not None and (args.head_dim % 8 or not 8 <= args.head_dim <= 256):
        raise UsageError(
            f"--head-dim {args.head_dim}: FlashAttention and vLLM need a multiple of 8 up to 256"
        )
    targets: list[str] = []
    try:
        for text in args.target:
            for spec in expand_target(text):
                parse_target(spec)  # degrees above MAX_DEGREE are refused there
                targets.append(spec)
        if args.budget is not None:
            parse_budget_text(args.budget)
    except TargetError as error:
        raise UsageError(str(error)) from None
    if args.budget is not None:
        from dimlint.memory import parse_budget

        try:
            parse_budget(args.budget)
        except ValueError as error:
            raise UsageError(str(error)) from None
    return Request(
        params=params,
        active=active,
        family=family,
        budget=args.budget,
        context=_positive(args.context, "--context", 10**8),
        batch=_positive(args.batch, "--batch", 10**5),
        dtype=args.dtype,
        kv_dtype=args.kv_dtype,
        targets=tuple(targets),
        vocab=_positive(args.vocab, "--vocab", 10**7) or like_vocab,
        layers=_positive(args.layers, "--layers", 1000),
        head_dim=args.head_dim,
        hidden=_positive(args.hidden, "--hidden", 131072),
        heads=_positive(args.heads, "--heads", 512),
        tokens=tokens,
        flops=flops,
        train_budget=train_budget,
        training=_training(args),
        optimizer=getattr(args, "optimizer", "adam"),
        zero=getattr(args, "zero", 0),
        recompute=getattr(args, "recompute", "none"),
        attention=_attention(args, family, moe is not None),
        kv_heads=_positive(args.kv_heads, "--kv-heads", 1024),
        gqa=parse_range(args.gqa_ratio, "--gqa-ratio") if args.gqa_ratio else None,
        moe=moe,
        mla=family == "deepseek_v3",
        top=_positive(args.top, "--top", 50) or 5,
    )


def write_config(folder: str, config: dict[str, Any]) -> str:
    """Write ``folder/config.json`` by ``--fix``'s rules (the folder is created when missing).

    An existing file is replaced atomically with its own mode kept, and only when ``--fix``
    would write it: a regular, writable file whose real path lies inside ``folder`` (a read-only
    ``config.json`` or a link out of the folder is refused). A new file gets the mode any
    program's new file gets, 0666 less the umask (``mkstemp``'s 0600 is not kept).
    """
    import json
    import os
    import stat

    from dimlint.fix.apply import write_refusal
    from dimlint.sources.safeio import replace_atomically

    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "config.json")
    data = (json.dumps(config, indent=2) + "\n").encode()
    if not os.path.lexists(path):
        replace_atomically(path, data)
        return path
    refusal = write_refusal(path, [os.path.realpath(folder)])
    if refusal is not None:
        raise UsageError(f"--write {folder}: {path} not replaced: {refusal}")
    real = os.path.realpath(path)
    replace_atomically(real, data, stat.S_IMODE(os.stat(real).st_mode))
    return path


def run_suggest(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import json

    from dimlint.fix.suggest.document import document
    from dimlint.fix.suggest.relax import diagnose
    from dimlint.fix.suggest.search import search

    request = build_request(args)
    if args.params == "largest":
        from dimlint.fix.suggest.largest import largest

        request = request._replace(params=largest(request), largest=True)
    outcome = search(request)
    impossible = None if outcome.candidates else diagnose(outcome)
    data = document(outcome, impossible, with_explanation=args.explain)
    if args.write and outcome.candidates:
        try:
            path = write_config(args.write, outcome.candidates[0].config)
        except OSError as error:
            raise UsageError(f"--write {args.write}: {error.strerror or error}") from None
        err.write(f"wrote {path}\n")
    if args.output_format == "json":
        out.write(json.dumps(data, indent=2) + "\n")
    else:
        from dimlint.commands.suggest_table import render

        out.write(render(data))
    return 0 if outcome.candidates else 1
