"""Lint one YAML file: find its model sections, run the rules, locate every finding.

The pipeline mirrors :func:`dimlint.linter.lint_bytes` for JSON:

1. a cheap pre-filter skips files that mention no dimension key, without importing PyYAML;
2. :mod:`dimlint.sources.yamlfile` parses with marks (DL001 at the YAML error's position);
3. :mod:`dimlint.sources.yamlmodels` finds the model sections of the framework's dialect and the
   parallel sizes stated in the same file, which become a Megatron-style deployment target of
   every section (added to the targets of the settings and command line);
4. each section is normalized like a ``config.json`` object and gets the same rules, less DL004
   (near-miss keys: a training config mixes model keys with everything else) and DL005 (a
   training config leaves the vocab to the tokenizer and the rest to the framework's defaults);
5. findings are located by JSON pointer and fixes replace exactly the scalar's characters.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from dimlint.checks import all_rules
from dimlint.config.normalize import GATED_ACTIVATIONS, normalize
from dimlint.config.spec import Located, ModelSpec
from dimlint.config.trainingkeys import embedding_rows, is_recurrent
from dimlint.diagnostics import Diagnostic, Position, Span
from dimlint.lint.pointer_locate import locate
from dimlint.lint.results import FileResult
from dimlint.lint.run_rules import spec_findings
from dimlint.lint.selection import Selection

if TYPE_CHECKING:
    from dimlint.deploy.targets import Deployment
    from dimlint.sources.yamlmodels import ParallelSize, Section

#: Rules that do not apply to YAML model sections (see the module docstring).
NOT_FOR_YAML = frozenset({"DL004", "DL005"})
#: The pre-filter: a key that names a hidden size, head count or layer count.
_DIMENSION_KEY = re.compile(
    rb"(?m)^[\s\"'{,]*(?:hidden[_-]size|d_model|n_embd|dim|embed_dim|model_dim|"
    rb"num[_-]attention[_-]heads|n_heads?|num_heads|num[_-]layers|n_layers?|num_hidden_layers)"
    rb"[\"']?\s*:"
)
#: Megatron/NeMo/gpt-neox spell a gated MLP as a flag or an activation name.
_GATED_FLAGS = ("swiglu", "gated_linear_unit")
_ACTIVATION_KEYS = ("activation", "activation_type", "activation_func", "hidden_act")
#: Keys only gpt-neox's configs have.
_NEOX_MARKERS = frozenset(
    {"attention_config", "pos_emb", "gpt_j_residual", "no_weight_tying", "mlp_multiple_of"}
)


def may_have_model(data: bytes) -> bool:
    """Whether the file mentions a dimension key at all (most YAML in a repo is CI and tooling)."""
    return _DIMENSION_KEY.search(data) is not None


def lint_yaml(path: str, data: bytes, selection: Selection) -> FileResult:
    """Lint the bytes of a YAML file named ``path``."""
    result = FileResult(path)
    if not may_have_model(data):
        result.skipped = "no model section (no hidden size, heads or layers key)"
        return result
    from dimlint.sources import yamlfile, yamlmodels

    enabled = selection.enabled_codes(path)
    document, problem = yamlfile.load(path, data)
    if document is None:
        assert problem is not None
        if "DL001" in enabled:
            position = problem.position
            span = Span(0, 0, position, Position(position.line, position.column + 1))
            severity = all_rules()["DL001"].severity
            result.diagnostics.append(Diagnostic("DL001", severity, problem.message, path, span))
        return result
    result.document = document
    found = yamlmodels.sections(document.value)
    if not found:
        result.skipped = "no model section (no mapping states two of hidden size, heads, layers)"
        return result
    sizes = yamlmodels.parallel_sizes(document.value)
    section_selection = selection._replace(deployment=_with_file_target(selection, sizes))
    family = yamlmodels.top_level_model_type(document.value)
    codes = enabled - NOT_FOR_YAML
    specs = [_spec(path, section, family) for section in found]
    for spec in specs:
        for finding in spec_findings(spec, codes, section_selection):
            located = locate(document, spec.pointer, finding, selection)
            result.diagnostics.append(_with_origin(located, sizes, finding.code))
    result.read = (len(specs), 0)
    result.models = [[spec] for spec in specs]
    result.diagnostics.sort(key=lambda d: d.sort_key)
    return result


def _spec(path: str, section: Section, family: str | None) -> ModelSpec:
    """Normalize one section, then apply what its dialect means beyond the common keys."""
    from dimlint.sources.yamlmodels import olmo_ffn

    obj = section.obj
    spec = normalize(path, section.pointer, obj)
    if spec.embedding_rows is None:
        for ancestor in reversed(section.ancestors):  # nanotron: model.make_vocab_size_…
            rows = embedding_rows(ancestor, "", spec.vocab)
            if rows is not None:
                spec.embedding_rows = rows
                break
    if family is not None and not spec.recurrent:
        spec.recurrent = is_recurrent({}, family, False)
    if spec.gated_mlp is None:
        spec.gated_mlp = _gated(obj)
    if spec.gated_mlp and spec.ffn is not None and spec.ffn.in_file and _is_neox(obj):
        spec.ffn = _neox_gated_ffn(obj, spec.ffn)
    if spec.ffn is None:
        olmo = olmo_ffn(obj)
        if olmo is not None:
            key, width, gated = olmo
            stated = key == "mlp_hidden_size" and not gated
            pointer = f"{section.pointer}/{key}"
            spec.ffn = Located(width, key, pointer, "config" if stated else "derived")
            spec.gated_mlp = gated
    return spec


def _is_neox(obj: dict[str, Any]) -> bool:
    """gpt-neox's dialect: its own keys, or keys spelled with hyphens."""
    return bool(_NEOX_MARKERS & obj.keys()) or any("-" in key for key in obj)


def _neox_gated_ffn(obj: dict[str, Any], ffn: Located[int]) -> Located[int]:
    """gpt-neox's gated MLP: ``intermediate_size`` counts the fused up+gate output at 3/2 of
    the parameters, so each branch is ``int(size × 2/3) // 2`` rounded up to
    ``mlp_multiple_of`` (megatron/model/transformer.py, ParallelMLP; Llama-2-13B: 41472 →
    13824)."""
    multiple = obj.get("mlp_multiple_of", obj.get("mlp-multiple-of", 1))
    if not isinstance(multiple, int) or isinstance(multiple, bool) or multiple < 1:
        multiple = 1
    branch = int(ffn.value * 2 / 3) // 2
    branch = -(-branch // multiple) * multiple
    return Located(branch, ffn.key, ffn.pointer, "derived")


def _gated(obj: dict[str, Any]) -> bool | None:
    if any(obj.get(flag) is True for flag in _GATED_FLAGS):
        return True
    for key in _ACTIVATION_KEYS:
        value = obj.get(key)
        if isinstance(value, str):
            name = value.lower().removeprefix("fast-").replace("_", "-")
            return name in GATED_ACTIVATIONS or name.replace("-", "_") in GATED_ACTIVATIONS
    return None


def _with_file_target(selection: Selection, sizes: dict[str, ParallelSize]) -> Deployment | None:
    """The selection's deployment plus a Megatron target with the sizes this file states."""
    deployment = selection.deployment
    degrees = {kind: size.value for kind, size in sizes.items() if size.value > 1}
    if not degrees:
        return deployment
    from dimlint.deploy.targets import Deployment, Target

    text = "megatron:" + ",".join(f"{kind}={value}" for kind, value in degrees.items())
    target = Target("megatron", text=f"{text} (stated in this file)", **degrees)
    base = deployment or Deployment()
    return base._replace(targets=(*base.targets, target))


def _with_origin(diagnostic: Diagnostic, sizes: dict[str, ParallelSize], code: str) -> Diagnostic:
    """Parallel-layout findings name the key that set the size they judge."""
    if not code.startswith("DL40") or not sizes:
        return diagnostic
    keys = ", ".join(f"{s.key}: {s.value} ({s.pointer})" for s in sizes.values() if s.value > 1)
    if not keys:
        return diagnostic
    return diagnostic._replace(message=f"{diagnostic.message} [parallel sizes from {keys}]")
