"""DL006 transformers-rejects: ask the installed transformers whether it would build the config.

Opt-in (``--extend-select DL006``) because importing transformers costs seconds and needs the
``hf`` extra. transformers 5 validates configs with strict dataclass validators; some of those
are wrong for legal configs (Llama's validator demands hidden % heads == 0 even when an explicit
``head_dim`` makes that irrelevant, transformers PR #46211), so the finding says when a refusal
is a known false one.

transformers builds per-layer lists while validating (``layer_types`` of ``num_hidden_layers``
entries), so a config with 10**8 layers keeps it busy for minutes and gigabytes: configs beyond
:data:`MAX_LAYERS` layers (a hundred times the deepest released model) are not handed to it.
"""

from __future__ import annotations

from collections.abc import Iterator

from dimlint.checks.registry import Finding, rule
from dimlint.config.normalize import INT_FIELDS
from dimlint.config.spec import ModelSpec
from dimlint.diagnostics import Severity

#: The most layers a config may state for DL006 to build it with transformers.
MAX_LAYERS = 10_000


def _too_large(spec: ModelSpec) -> bool:
    """Whether a layer count (under any spelling, in any sub-config) exceeds MAX_LAYERS."""
    standard, spellings = INT_FIELDS["layers"]
    keys = {standard, *spellings, "num_layers", "n_layer", "num_hidden_layers"}
    pending: list[object] = [spec.raw]
    while pending:  # iterative: a config may nest sub-configs deeply
        value = pending.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if key in keys and isinstance(item, int) and item > MAX_LAYERS:
                    return True
                if isinstance(item, dict):
                    pending.append(item)
    return False


def _refusal(spec: ModelSpec) -> tuple[str, str] | None:
    """(transformers version, error text) if transformers refuses the config, else None."""
    import transformers
    from transformers import AutoConfig

    transformers.logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    kwargs = {key: value for key, value in spec.raw.items() if key != "model_type"}
    try:
        AutoConfig.for_model(str(spec.model_type), **kwargs)
    except Exception as error:  # transformers raises many types; all mean "refused"
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        return transformers.__version__, " ".join(lines[-2:]) or type(error).__name__
    return None


def _known_false(spec: ModelSpec, text: str) -> bool:
    if spec.head_dim is None or not spec.head_dim.in_file:
        return False
    if spec.hidden is None or spec.heads is None:
        return False
    return (
        spec.hidden.value % spec.heads.value != 0
        and "multiple of the number of attention heads" in text
    )


@rule(
    "DL006",
    "transformers-rejects",
    Severity.WARNING,
    "The installed transformers refuses to build the config (opt-in; needs the hf extra).",
    enabled_by_default=False,
)
def check_with_transformers(spec: ModelSpec) -> Iterator[Finding]:
    if spec.pointer or not spec.known_type or spec.model_type is None:
        return  # nested configs are built (and validated) by their parent
    if _too_large(spec):
        return  # not built: transformers' validation would not finish (see module doc)
    try:
        refusal = _refusal(spec)
    except ImportError:
        yield Finding(
            "DL006",
            "DL006 needs transformers: install dimlint with the hf extra"
            " (pip install 'dimlint[hf]') or deselect DL006.",
            None,
        )
        return
    if refusal is None:
        return
    version, text = refusal
    message = f"transformers {version} refuses this config: {text}"
    if _known_false(spec, text):
        assert spec.head_dim is not None
        message += (
            f". This refusal is a known false one: head_dim {spec.head_dim.value} is stated"
            " explicitly and the model uses it, but the validator checks hidden % heads anyway"
            " (transformers PR #46211); the model itself works."
        )
    yield Finding("DL006", message, None)
