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
from dimlint.config.normalize import GATED_ACTIVATIONS, field_keys, normalize
from dimlint.config.spec import FRAMEWORK, MEGATRON, MEGATRON_LM, Located, ModelSpec
from dimlint.config.trainingkeys import (
    OPEN_LM_KEYS,
    TENCENT_KEYS,
    embedding_rows,
    is_recurrent,
)
from dimlint.diagnostics import Diagnostic, Position, Span
from dimlint.lint.pointer_locate import locate
from dimlint.lint.results import FileResult
from dimlint.lint.run_rules import FILE_TARGET_SUFFIX, spec_findings
from dimlint.lint.selection import Selection
from dimlint.records import Record

if TYPE_CHECKING:
    from dimlint.checks.registry import Finding
    from dimlint.deploy.targets import Deployment
    from dimlint.sources.yamlfile import YamlDocument
    from dimlint.sources.yamlmodels import ParallelSize, Section

#: Rules that do not apply to YAML model sections (see the module docstring).
NOT_FOR_YAML = frozenset({"DL004", "DL005"})
#: The pre-filter: a key that names a hidden size, head count or layer count.
#: A key may follow a flow mapping's ``{`` or ``,`` anywhere on a line (``model: {d_model: …}``),
#: carry Megatron's ``--`` (``--hidden-size:``) or maxtext's ``base_`` (``base_emb_dim``); the ViT
#: family's ``width`` is one beside its heads and depth (``trainingkeys.width_is_width``); yacs
#: files write Swin's ``EMBED_DIM`` and UniFormerV2's ``N_DIM`` in upper case; a head count may
#: carry a model's name prefix (``text_num_attention_heads``: ``trainingkeys.prefixed_models``).
_DIMENSION_KEY = re.compile(
    rb"(?m)(?:^|[{,])[\s\"']*(?:--)?(?:base_)?(?:hidden[_-]size|d_model|n_embd|dim|embed_dim|"
    rb"emb_dim|model_dim|hidden_dim|num[_-]attention[_-]heads|n_heads?|num_heads|attention_heads|"
    rb"num_query_heads|num[_-]layers|n_layers?|num_hidden_layers|num_decoder_layers|heads_num|"
    rb"layers_num|width|EMBED_DIM|N_DIM|[A-Za-z0-9]+_(?:num_attention_heads|n_heads?|num_heads))"
    rb"[\"']?\s*:"
)
#: Megatron/NeMo/gpt-neox spell a gated MLP as a flag or an activation name.
_GATED_FLAGS = ("swiglu", "gated_linear_unit")
_ACTIVATION_KEYS = ("activation", "activation_type", "activation_func", "hidden_act")
#: Keys only gpt-neox's configs have.
_NEOX_MARKERS = frozenset(
    {"attention_config", "pos_emb", "gpt_j_residual", "no_weight_tying", "mlp_multiple_of"}
)
#: gpt-neox's name of the MLP width (``NeoXArgs.intermediate_size``). It has no
#: ``ffn_hidden_size``: a section that writes Megatron's name means Megatron's per-branch width,
#: even beside a hyphenated key (FlagScale's ``model:`` sections hold Megatron arguments and
#: spell a few with hyphens, ``untie-embeddings-and-output-weights``).
_NEOX_FFN_KEYS = frozenset({"intermediate_size", "intermediate-size"})


#: A Hydra defaults list: the file may compose a model from files that state its dimensions.
_DEFAULTS_LIST = re.compile(rb"(?m)^defaults[ \t]*:")


def may_have_model(data: bytes) -> bool:
    """Whether the file mentions a dimension key at all (most YAML in a repo is CI and tooling),
    or composes other files through a Hydra defaults list."""
    return _DIMENSION_KEY.search(data) is not None or _DEFAULTS_LIST.search(data) is not None


def lint_yaml(path: str, data: bytes, selection: Selection) -> FileResult:
    """Lint the bytes of a YAML file named ``path``."""
    result = FileResult(path)
    if not may_have_model(data):
        result.skipped = "no model section (no hidden size, heads or layers key)"
        return result
    from dimlint.sources import yamlfile

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
    return lint_document(path, document, selection, result)


def lint_document(
    path: str,
    document: YamlDocument,
    selection: Selection,
    result: FileResult,
    framework: str | None = None,
) -> FileResult:
    """Lint a parsed document (a YAML file, a launch script's arguments, gin bindings): its
    sections, the parallel sizes it states, each finding located by pointer. ``framework``
    names the framework that reads every section, where the front end knows it (T5X for gin)."""
    from dimlint.sources import yamldialects, yamlmodels

    enabled = selection.enabled_codes(path)
    result.document = document
    yamldialects.translate(document)
    found = yamlmodels.sections(document.value)
    if not found:
        result.skipped = "no model section (no mapping states two of hidden size, heads, layers)"
        return result
    sizes = yamlmodels.parallel_sizes(document.value)
    conversion = yamlmodels.conversion_key(document.value)
    unjudged = sizes if conversion is not None else {}
    if unjudged:
        sizes = {}
    section_selection = selection._replace(deployment=_with_file_target(selection, sizes))
    family = yamlmodels.top_level_model_type(document.value)
    codes = enabled - NOT_FOR_YAML
    notes: list[str] = []
    if unjudged:
        notes.append(
            f"parallel sizes not judged as a layout ({conversion} is stated: a checkpoint"
            " conversion, whose sizes are the checkpoints' layouts, reshaped in one process)"
        )
    built = [_spec(path, _known(section, notes), family) for section in found]
    for spec, _ in built:
        _as_written(spec, document.spelled)
    specs = [spec for spec, _ in built]
    if framework is not None:
        for spec in specs:
            spec.memo[FRAMEWORK] = framework
    _with_stage_split(specs, document.value)
    result.notes = [
        note
        for note in document.notes
        if note.startswith("defaults: ")  # what a Hydra defaults list could not compose
        or any(note.startswith(f"{section.pointer}/") for section in found)
    ] + notes
    for spec, derived in built:
        for found_here in spec_findings(spec, codes, section_selection):
            finding = found_here if derived is None else _on_stated_key(found_here, derived)
            located = locate(document, spec.pointer, finding, selection)
            result.diagnostics.append(_with_origin(located, sizes, finding.code))
    result.read = (len(specs), 0)
    if "noqa" in document.text.lower():  # suppression comments, read as in Python files
        from dimlint.lint import noqa

        found_noqa = noqa.directives(document, noqa.yaml_comments(document.text))
        result.diagnostics = noqa.apply(
            result.diagnostics, found_noqa, document, selection, enabled
        )
    from dimlint.lint import placeholders

    if placeholders.may_apply(document.text):
        from dimlint.lint import noqa

        lines = placeholders.marked_lines(document, noqa.yaml_comments(document.text))
        result.diagnostics = placeholders.drop_marked(
            result.diagnostics, lines, document, result.notes
        )
    result.models = [[spec] for spec in specs]
    if len(specs) > 1:  # a value several sections share (a launch script's common arguments)
        from dimlint.lint.results import unique

        result.diagnostics = unique(result.diagnostics)
    result.diagnostics.sort(key=lambda d: d.sort_key)
    return result


def _as_written(spec: ModelSpec, spelled: dict[str, str]) -> None:
    """Name each value a dialect translated by the key the file writes (``hidden_dim``, not
    ``hidden_size``; ``--hidden-size`` in a launch script): messages and fix titles quote the
    spec's keys, and the user looks for the key they wrote."""
    if not spelled:
        return
    for name, value in list(vars(spec).items()):
        if isinstance(value, Located) and value.pointer in spelled:
            written = spelled[value.pointer]
            if written != value.key:
                setattr(spec, name, Located(value.value, written, value.pointer, value.origin))


def _known(section: Section, notes: list[str] | None = None) -> Section:
    """The section without the values the reader could not know (``Unresolved``): certainty
    before severity, a rule sees only what the file states (the notes say what was left out);
    without placeholder sizes, and without heads the model does not use."""
    obj = _without_unresolved(section.obj, 0)
    if any(obj.get(key) is True for key in _ATTENTION_REPLACED):
        # M2-BERT's Monarch mixer replaces attention: num_attention_heads builds nothing
        obj = {key: value for key, value in obj.items() if key not in _HEAD_FIELDS}
    widths = [obj.get(key) for key in _WIDTH_FIELDS]
    if any(value.__class__ is int and value == 1 for value in widths):
        # a converter's launch script fills the required sizes with 1 (``--hidden-size 1
        # --num-attention-heads 1``) and reads the real ones from the checkpoint
        placeholders = [
            k for k, v in obj.items() if k in _ZERO_MEANS_NONE and v.__class__ is int and v == 1
        ]
        obj = {key: value for key, value in obj.items() if key not in placeholders}
        if notes is not None:
            notes.append(
                f"{section.pointer}/{placeholders[0]}: sizes of 1 ({', '.join(placeholders)})"
                " not read (placeholders: no model is 1 wide)"
            )
    return section._replace(obj=obj)


#: Dimension keys whose 0 in a training YAML means "none" or "set later" (NeMo's ASR
#: ``transf_decoder: num_layers: 0``, no decoder; flash-attn's GPT ``max_position_embeddings:
#: 0``, no learned position table beside rotary), never a size to judge.
_ZERO_MEANS_NONE = field_keys(
    "hidden",
    "heads",
    "kv_heads",
    "head_dim",
    "ffn",
    "expert_ffn",
    "layers",
    "vocab",
    "max_positions",
)


#: Flags of a model whose sequence mixer is not attention (its head count builds nothing).
_ATTENTION_REPLACED = ("monarch_mixer_sequence_mixing",)
_HEAD_FIELDS = field_keys("heads", "kv_heads")
_WIDTH_FIELDS = field_keys("hidden")


def _without_unresolved(obj: dict[str, Any], depth: int) -> dict[str, Any]:
    """``obj`` without what is not a value: Unresolved markers, OmegaConf's ``None`` string
    (``vocab_size: None`` reads as a string that the framework treats as null), and a 0 or
    negative size (a training framework's "none" or "not set")."""
    from dimlint.config.values import Unresolved

    kept: dict[str, Any] = {}
    for key, value in obj.items():
        if isinstance(value, Unresolved) or value == "None":
            continue
        if key in _ZERO_MEANS_NONE and value.__class__ is int and value <= 0:
            continue  # 0: none; negative: maxtext's ``base_moe_mlp_dim: -1``, "not set"
        nested = isinstance(value, dict) and depth < 4
        kept[key] = _without_unresolved(value, depth + 1) if nested else value
    return kept


class Derived(Record):
    """A width the dialect derives from a stated key: how findings quote it, and where."""

    quoted: str
    stated: str
    pointer: str


def _on_stated_key(finding: Finding, derived: Derived) -> Finding:
    """A finding about a derived width quotes the number the file states and sits on its key
    (OLMo's ``mlp_hidden_size 22010`` of a SwiGLU block, not a per-branch 11005 on ``d_model``)."""
    if derived.quoted not in finding.message:
        return finding
    message = finding.message.replace(derived.quoted, derived.stated, 1)
    return finding._replace(message=message, anchor=derived.pointer)


def _spec(path: str, section: Section, family: str | None) -> tuple[ModelSpec, Derived | None]:
    """Normalize one section, then apply what its dialect means beyond the common keys."""
    from dimlint.sources.yamlmodels import olmo_ffn

    obj = section.obj
    spec = normalize(path, section.pointer, obj)
    framework = _framework(obj)
    if framework is not None:
        spec.memo[FRAMEWORK] = framework
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
    if obj.keys() >= OPEN_LM_KEYS or obj.keys() >= TENCENT_KEYS:
        _rounded_head_width(spec)
    derived: Derived | None = None
    if (
        spec.gated_mlp
        and spec.ffn is not None
        and spec.ffn.in_file
        and spec.ffn.key in _NEOX_FFN_KEYS
        and _is_neox(obj)
    ):
        written = spec.ffn
        spec.ffn = _neox_gated_ffn(obj, written)
        if written.pointer is not None:
            derived = Derived(
                f"{written.key} {spec.ffn.value}",
                f"{written.key} {written.value} (gpt-neox's gated MLP: {spec.ffn.value} per"
                " branch)",
                written.pointer,
            )
    if spec.ffn is None:
        olmo = olmo_ffn(obj)
        if olmo is not None:
            key, width, gated = olmo
            stated = key == "mlp_hidden_size" and not gated
            pointer = f"{section.pointer}/{key}"
            spec.ffn = Located(width, key, pointer, "config" if stated else "derived")
            spec.gated_mlp = gated
            if not stated:
                derived = Derived(f"{key} {width}", _olmo_wording(obj, key, width, gated), pointer)
    return spec, derived


#: Megatron's argument names no other dialect this reader knows writes (NeMo's ``model:``,
#: FlagScale's): a section with one of them is read by a Megatron.
_MEGATRON_MARKERS = frozenset(
    {
        "ffn_hidden_size",
        "num_query_groups",
        "kv_channels",
        "make_vocab_size_divisible_by",
        "encoder_seq_length",
        "apply_query_key_layer_scaling",
    }
)


def _framework(obj: dict[str, Any]) -> str | None:
    """Which Megatron reads a section, if one does: Megatron-LM for its ``--`` arguments (a
    launch script, a functional-test ``MODEL_ARGS``), some Megatron for its names written
    plainly (gpt-neox, a Megatron fork with its own checks, is not judged as one)."""
    if any(isinstance(key, str) and key.startswith("--") for key in obj):
        return MEGATRON_LM
    if _MEGATRON_MARKERS & obj.keys() and not _is_neox(obj):
        return MEGATRON
    return None


def _rounded_head_width(spec: ModelSpec) -> None:
    """open_lm's and TencentPretrain's head width, the width over the heads rounded down
    (open_lm's ``Params``, TencentPretrain's ``hidden_size // heads_num``): open_lm's 87M config
    (``hidden_dim`` 488, 12 heads) runs with heads 40 wide, an attention 480 wide; DL101's
    crash is not what happens."""
    hidden, heads = spec.hidden, spec.heads
    if spec.head_dim is not None or hidden is None or heads is None or heads.value <= 0:
        return
    if hidden.value % heads.value:
        spec.head_dim = Located(hidden.value // heads.value, "head_dim", None, "derived")


def _olmo_wording(obj: dict[str, Any], key: str, width: int, gated: bool) -> str:
    """OLMo's MLP width as the file states it, with what dimlint derives from it."""
    branch = f", gated: {width} per branch" if gated else ""
    if key == "mlp_ratio":
        full = int(obj[key] * obj["d_model"])
        return f"mlp_ratio {obj[key]} (× d_model {obj.get('d_model')} = {full}{branch})"
    return f"{key} {obj[key]} ({branch.removeprefix(', ')})"


def _is_neox(obj: dict[str, Any]) -> bool:
    """gpt-neox's dialect: its own keys, or keys spelled with hyphens (not Megatron's
    ``--argument`` names, whose MLP width is the per-branch width)."""
    return bool(_NEOX_MARKERS & obj.keys()) or any(
        "-" in key and not key.startswith("--") for key in obj
    )


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


def _with_stage_split(specs: list[ModelSpec], value: Any) -> None:
    """Give each section the pipeline split the file states elsewhere (FlagScale's
    ``system: decoder_first_pipeline_num_layers: 13`` beside ``pipeline_model_parallel_size``,
    the model's ``num_layers: 27`` in ``model:``): the pp checks read it from the spec."""
    from dimlint.deploy.engines import SPLIT_KEYS
    from dimlint.sources.yamlmodels import first_stated

    stated = first_stated(value, SPLIT_KEYS)
    for spec in specs:
        missing = {key: v for key, v in stated.items() if key not in spec.raw}
        if missing:
            spec.raw = {**spec.raw, **missing}


def _with_file_target(selection: Selection, sizes: dict[str, ParallelSize]) -> Deployment | None:
    """The selection's deployment plus a Megatron target with the sizes this file states."""
    deployment = selection.deployment
    degrees = {kind: size.value for kind, size in sizes.items() if size.value > 1}
    if not degrees:
        return deployment
    from dimlint.deploy.targets import Deployment, Target

    text = "megatron:" + ",".join(f"{kind}={value}" for kind, value in degrees.items())
    target = Target("megatron", text=f"{text} {FILE_TARGET_SUFFIX}", **degrees)
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


def specs_of(path: str, value: Any) -> list[ModelSpec]:
    """The specs of the model sections of a parsed YAML document, read as :func:`lint_yaml`
    reads them (the language server's hover, and its probes of neighbouring values)."""
    from dimlint.sources import yamlmodels

    family = yamlmodels.top_level_model_type(value)
    return [_spec(path, _known(section), family)[0] for section in yamlmodels.sections(value)]
