"""Totals and dtypes: DL503 (declared sizes), DL612 (stored dtype), and the parameter total
that stands in for DL611 when a family's tensor names are not modelled.

The index of a sharded checkpoint declares ``metadata.total_size`` (bytes of all tensors) and,
since transformers 5, ``metadata.total_parameters``. Both can be recomputed from the headers —
and, when the shards have not been downloaded yet, compared with the parameter count the config
implies: a wrong config is then caught before the download.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from dimlint.checks.registry import Finding
from dimlint.config.spec import ModelSpec
from dimlint.diagnostics import Severity
from dimlint.memory.checkpoint.stored_extras import COMMON_BUFFERS, quantization
from dimlint.records import Record
from dimlint.sources.checkpoint import Checkpoint
from dimlint.sources.safetensors import DTYPE_BITS, FLOAT_DTYPES

#: ``torch_dtype`` / ``dtype`` spellings → safetensors dtype.
DECLARED = {
    "float32": "F32",
    "float": "F32",
    "float16": "F16",
    "half": "F16",
    "bfloat16": "BF16",
    "float64": "F64",
    "double": "F64",
}
#: Below this relative difference a size estimated from the config (shards absent) is a match:
#: a few small tensors (router biases, norms) are often kept in float32.
TOLERANCE = 0.001
#: The same for a parameter count dimlint estimates (a model type it does not know: counted as a
#: Llama-like decoder): a gap this large is more than a guessed bias or norm can explain.
ESTIMATE_TOLERANCE = 0.02
_BUFFERS = re.compile("|".join(COMMON_BUFFERS))


class IndexFinding(Record):
    """A finding located in the index file (``pointer`` into it), not in the config."""

    code: str
    message: str
    pointer: str


def declared_dtype(specs: list[ModelSpec]) -> tuple[str, str, str] | None:
    """(safetensors dtype, key, pointer) of the dtype the config declares, if any."""
    for spec in specs:
        for key in ("dtype", "torch_dtype"):
            value = spec.raw.get(key)
            if isinstance(value, str) and value.lower() in DECLARED:
                return DECLARED[value.lower()], key, f"{spec.pointer}/{key}"
    return None


def dtype_findings(specs: list[ModelSpec], checkpoint: Checkpoint) -> Iterator[Finding]:
    """DL612: the weights are mostly stored in another dtype than the config declares."""
    declared = declared_dtype(specs)
    if declared is None or quantization(specs[0]) is not None:
        return
    wanted, key, pointer = declared
    stored: Counter[str] = Counter()
    for tensor in checkpoint.tensors.values():
        if tensor.dtype in FLOAT_DTYPES:
            stored[tensor.dtype] += tensor.nbytes
    if not sum(stored.values()):
        return  # no floating-point tensor, or only empty ones: nothing is stored in any dtype
    dtype, amount = stored.most_common(1)[0]
    if dtype == wanted:
        return
    share = amount / sum(stored.values())
    ratio = DTYPE_BITS[dtype] / DTYPE_BITS[wanted]
    size = f"{ratio:g}× the size {wanted} needs" if ratio >= 1 else f"{ratio:g}× the {wanted} size"
    yield Finding(
        "DL612",
        f"the weights are stored as {dtype} ({share:.0%} of the floating-point bytes) but the"
        f" config declares {key} {specs[0].raw.get(key) or wanted}: from_pretrained converts"
        f" them on load, and the download is {size}. Declare the stored dtype, or save the"
        f" weights as {wanted}.",
        pointer,
    )


def total_findings(
    specs: list[ModelSpec],
    checkpoint: Checkpoint,
    parameters: int,
    skip: frozenset[str] = frozenset(),
) -> Iterator[Finding]:
    """DL611 (warning) for families without a tensor plan: the parameter totals differ.
    ``skip``: stored names that are not parameters (saved buffers, tied copies)."""
    stored = sum(
        t.numel for n, t in checkpoint.tensors.items() if not _BUFFERS.search(n) and n not in skip
    )
    if stored == parameters:
        return
    spec = specs[0]
    difference = stored - parameters
    hint = ""
    hidden, vocab = spec.hidden, spec.vocab
    if hidden is not None and vocab is not None and abs(difference) == hidden.value * vocab.value:
        hint = f" — exactly one {vocab.key} × {hidden.key} matrix: is tie_word_embeddings right?"
    yield Finding(
        "DL611",
        f"the checkpoint holds {stored:,} values but the config implies {parameters:,}"
        f" parameters ({difference:+,}){hint}: tensors are missing or extra for this config."
        f" dimlint cannot match the tensor names of {spec.model_type or 'this model'} with"
        " certainty, so it compares totals only; loading it with transformers names the"
        " tensors.",
        spec.pointer,
        Severity.WARNING,
    )


def index_findings(
    checkpoint: Checkpoint,
    specs: list[ModelSpec],
    not_parameters: frozenset[str] | None,
    parameters: int | None,
    exact: bool = True,
) -> Iterator[IndexFinding]:
    """DL503: the index's declared total size (or parameter count) is not the real one.
    ``not_parameters``: the stored names that are not parameters (saved buffers, tied copies),
    None when unknown — the declared parameter count is then not checked."""
    index = checkpoint.index_json
    if index is None:
        return
    if checkpoint.complete:
        tensors = [checkpoint.tensors[name] for name in index.weight_map]
        computed = sum(t.nbytes for t in tensors)
        if index.total_size is not None and index.total_size != computed:
            yield IndexFinding(
                "DL503",
                f"metadata.total_size declares {index.total_size:,} bytes but the shard headers"
                f" hold {computed:,} bytes of tensors ({index.total_size - computed:+,}): tools"
                " that size downloads, memory maps or device maps from the index get it wrong."
                f" Set total_size to {computed}.",
                "/metadata/total_size",
            )
        # which tensors are buffers (saved, not parameters) is known only from the template
        if not_parameters is None or quantization(specs[0]) is not None:
            return
        count = sum(
            t.numel for t in tensors if t.name not in not_parameters and not _BUFFERS.search(t.name)
        )
        if index.total_parameters is not None and index.total_parameters != count:
            yield IndexFinding(
                "DL503",
                f"metadata.total_parameters declares {index.total_parameters:,} but the shard"
                f" headers hold {count:,} values ({index.total_parameters - count:+,}). Set"
                f" total_parameters to {count}.",
                "/metadata/total_parameters",
            )
        return
    yield from _estimated(index.total_size, specs, parameters, exact)


def _estimated(
    total_size: int | None,
    specs: list[ModelSpec],
    parameters: int | None,
    exact: bool = True,
) -> Iterator[IndexFinding]:
    """Shards absent: compare the declared bytes with the config's parameters × dtype."""
    declared = declared_dtype(specs)
    if total_size is None or declared is None or parameters is None:
        return
    if quantization(specs[0]) is not None:
        return
    dtype = declared[0]
    expected = parameters * DTYPE_BITS[dtype] // 8
    tolerance = TOLERANCE if exact else ESTIMATE_TOLERANCE
    if expected <= 0 or abs(total_size - expected) <= tolerance * expected:
        return
    implies = "implies" if exact else "implies about (dimlint estimates this model type)"
    yield IndexFinding(
        "DL503",
        f"metadata.total_size declares {total_size:,} bytes, but the config {implies}"
        f" {parameters:,} parameters × {DTYPE_BITS[dtype] // 8} bytes ({dtype}) ="
        f" {expected:,} ({(total_size - expected) / expected:+.1%}): the weights do not match"
        " this config. The shards are not here, so which tensors differ is unknown; check the"
        " config before downloading them.",
        "/metadata/total_size",
    )
