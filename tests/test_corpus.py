"""dimlint over two real corpora: the shared config corpus and transformers' own defaults.

DOMAIN.md: "A rule that fires on a shipping model from a major lab is a bug in the rule." So

* every released-model config of ``../shared/corpus`` must lint without raising and without an
  error-level finding;
* every other JSON of the corpus (research drafts, test fixtures, other formats, the bundle of
  trimmed hub configs) must lint without raising — their errors can be real mistakes;
* every default config of the installed transformers must lint without raising, and each error
  it gets must be a reviewed, true defect of that default (``KNOWN_INVALID_DEFAULTS``).

``python tests/test_corpus.py --report`` prints how often each rule fires on both corpora.
"""

from __future__ import annotations

import csv
import json
import sys
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

if __package__ in (None, ""):  # run as a script: make the `tests` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dimlint.diagnostics import Diagnostic, Severity
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection
from tests.conftest import SHARED, shared_path

CORPUS = SHARED / "corpus"
RELEASED = "released-model"
#: Stands in for the corpus files when ../shared is absent: the test then skips (or fails
#: under DIMLINT_REQUIRE_SHARED) through ``shared_path`` instead of collecting nothing.
MISSING = "<shared corpus absent>"

#: Error findings on transformers' own defaults that are true defects of the default, keyed
#: (model_type, code, pointer). Each was checked against the transformers 5.24 sources under
#: .venv/.../transformers/models/<type>/ and by building the model (meta device or a one-layer,
#: few-expert copy that keeps the attention geometry). An error that is not here is either a new
#: defect in a newer transformers (review it, add it) or a dimlint false positive (fix dimlint).
KNOWN_INVALID_DEFAULTS: dict[tuple[str, str, str], str] = {
    ("aya_vision", "DL101", "/vision_config/hidden_size"): (
        "SigLIP vision tower 1152 wide with 14 heads and no head_dim: transformers refuses to"
        " build it (ValueError: embed_dim must be divisible by num_heads); DOMAIN.md"
    ),
    ("glm4_moe", "DL101", "/hidden_size"): (
        "4096 / 96 heads and no head_dim (the released GLM-4.5 states head_dim 128): Megatron"
        " and engines that require hidden % heads refuse it; transformers silently floors"
        " head_dim to 42 (q/o projections 4032 wide, rotary dim 21), so it builds and runs but"
        " is not the architecture it names; DOMAIN.md"
    ),
    ("glm4v_moe", "DL101", "/text_config/hidden_size"): (
        "same text tower as glm4v_moe_text: 4096 / 96 heads, no head_dim"
    ),
    ("glm4v_moe_text", "DL101", "/hidden_size"): (
        "4096 / 96 heads, no head_dim: head_dim floors to 42 and the first forward fails"
        " (mrope split_with_sizes [8, 12, 12] over a rotary half-width of 11)"
    ),
    ("qwen3_omni_moe", "DL101", "/thinker_config/text_config/hidden_size"): (
        "same thinker text tower as qwen3_omni_moe_text: 2048 / 28 heads, no head_dim"
    ),
    ("qwen3_omni_moe_text", "DL101", "/hidden_size"): (
        "2048 / 28 heads with no head_dim: head_dim floors to 73 and the first forward fails"
        " (rotary: size of tensor a (73) must match b (74)); DOMAIN.md"
    ),
    ("qwen3_omni_moe_thinker", "DL101", "/text_config/hidden_size"): (
        "same thinker text tower as qwen3_omni_moe_text: 2048 / 28 heads, no head_dim"
    ),
}

#: If more than this share of model types cannot even build their default, the harness (not
#: transformers) is broken: e.g. an incompatible torch makes every construction raise.
MAX_UNBUILDABLE_SHARE = 0.02
#: Default configs the pinned transformers cannot build itself (reviewed for 5.24.0, the version
#: of constraints.txt): its own validators reject its own defaults. Named so that the test of
#: them asserts, instead of skipping every run; another version only has to stay under
#: MAX_UNBUILDABLE_SHARE.
PINNED_TRANSFORMERS = "5.24.0"
KNOWN_UNBUILDABLE: dict[str, str] = {
    "gemma4_assistant": "hidden_size_per_layer_input must be 0, got 256",
    "nougat": "Unrecognized model type for subconfig: donut_swin",
}


class ManifestRow(NamedTuple):
    """The MANIFEST.tsv columns the tests read."""

    file: str
    model_type: str
    purpose: str


def read_manifest(corpus: Path = CORPUS) -> list[ManifestRow]:
    """MANIFEST.tsv rows (empty when the corpus is absent, so collection still works)."""
    manifest = corpus / "MANIFEST.tsv"
    if not manifest.exists():
        return []
    with manifest.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        return [ManifestRow(r["file"], r["model_type"], r["purpose"]) for r in reader]


def released_files(corpus: Path = CORPUS) -> list[str]:
    """Corpus-relative paths of the configs the manifest marks as released models."""
    found = sorted(r.file for r in read_manifest(corpus) if r.purpose == RELEASED)
    return found or [MISSING]


def other_json_files(corpus: Path = CORPUS) -> list[str]:
    """Every other JSON file of the corpus (drafts, fixtures, other formats, the bundle)."""
    if not corpus.exists():
        return [MISSING]
    released = set(released_files(corpus))
    every = (str(p.relative_to(corpus)) for p in corpus.rglob("*.json") if p.is_file())
    return sorted(f for f in every if f not in released)


def corpus_file(relative: str) -> Path:
    """The corpus file, or a skip (fail under DIMLINT_REQUIRE_SHARED) when ../shared is absent."""
    if relative == MISSING:
        shared_path("corpus", "MANIFEST.tsv")
    return shared_path("corpus", relative)


def lint_corpus_file(relative: str, data: bytes) -> list[Diagnostic]:
    """Lint as the CLI does on a named file: default rules, the file's corpus path."""
    return lint_bytes(relative, data, Selection()).diagnostics


def describe(diagnostics: list[Diagnostic], where: str) -> str:
    """One line per finding: enough to find the value without re-running anything."""
    lines = []
    for d in diagnostics:
        line = d.span.start_pos.line if d.span else 0
        lines.append(f"{where}:{line} {d.code} {d.pointer}: {d.message}")
    return "\n".join(lines)


def errors_of(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.severity is Severity.ERROR]


# --------------------------------------------------------------------------- shared corpus


def test_manifest_lists_every_config() -> None:
    """A config missing from MANIFEST.tsv would escape the released-model test unnoticed."""
    corpus = shared_path("corpus")
    rows = read_manifest(corpus)
    listed = {r.file for r in rows}
    on_disk = {str(p.relative_to(corpus)) for p in (corpus / "configs").rglob("*.json")}
    assert not on_disk - listed, f"configs without a manifest row: {sorted(on_disk - listed)}"
    missing = sorted(f for f in listed if not (corpus / f).exists())
    assert not missing, f"manifest rows whose file is gone: {missing}"
    assert sum(r.purpose == RELEASED for r in rows) >= 100


@pytest.mark.parametrize("relative", released_files())
def test_released_model_has_no_error(relative: str) -> None:
    """Released models load and run in their framework: an error on one is a false positive."""
    path = corpus_file(relative)
    diagnostics = lint_corpus_file(relative, path.read_bytes())
    errors = errors_of(diagnostics)
    assert not errors, "error findings on a released model:\n" + describe(errors, relative)


@pytest.mark.parametrize("relative", other_json_files())
def test_other_corpus_json_never_raises(relative: str) -> None:
    """Drafts and fixtures may be wrong (errors allowed) but must never crash the linter."""
    path = corpus_file(relative)
    lint_corpus_file(relative, path.read_bytes())


def bundle_entries(path: Path) -> Iterator[tuple[str, str]]:
    """(hub id, config text) for each trimmed config of a bundle keyed by hub id."""
    bundle = json.loads(path.read_text(encoding="utf-8"))
    for hub_id, config in bundle.items():
        yield hub_id, json.dumps(config, indent=2)


def test_bundle_entries_never_raise() -> None:
    """The bundle is one object of ~3,000 configs; each one alone is a config.json too."""
    bundles = sorted(shared_path("corpus", "bundles").glob("*.json"))
    assert bundles
    crashes = []
    count = 0
    for bundle in bundles:
        for hub_id, text in bundle_entries(bundle):
            count += 1
            try:
                lint_bytes(f"{hub_id}/config.json", text.encode("utf-8"), Selection())
            except Exception:
                crashes.append(f"{bundle.name}[{hub_id}]:\n{traceback.format_exc()}")
    assert count > 1000
    assert not crashes, "\n".join(crashes)


# --------------------------------------------------------------- transformers' own defaults


class DefaultsRun(NamedTuple):
    """Every default config of the installed transformers, serialised and linted once."""

    version: str
    #: model type → the exception text, for types whose default config class raises.
    unbuildable: dict[str, str]
    #: model type → config.json text of the default.
    texts: dict[str, str]
    #: model type → findings (types whose linting raised are in ``crashes`` instead).
    results: dict[str, list[Diagnostic]]
    #: model type → traceback of the exception dimlint raised.
    crashes: dict[str, str]


def build_default_configs() -> tuple[str, dict[str, str], dict[str, str]]:
    """(version, unbuildable, texts): ``CONFIG_MAPPING[t]()`` for every model type."""
    import transformers
    from transformers.models.auto.configuration_auto import (
        CONFIG_MAPPING,
        CONFIG_MAPPING_NAMES,
    )

    transformers.logging.set_verbosity_error()
    unbuildable: dict[str, str] = {}
    texts: dict[str, str] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model_type in sorted(CONFIG_MAPPING_NAMES):
            try:
                config = CONFIG_MAPPING[model_type]()
                texts[model_type] = config.to_json_string(use_diff=False)
            except Exception as error:  # transformers cannot build its own default
                unbuildable[model_type] = one_line(error)
    return str(transformers.__version__), unbuildable, texts


def one_line(error: BaseException, limit: int = 160) -> str:
    """An exception as one short line (transformers' messages list every model type)."""
    text = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return f"{type(error).__name__}: {text}"


def lint_defaults() -> DefaultsRun:
    """Build and lint every transformers default (seconds: do it once per module)."""
    version, unbuildable, texts = build_default_configs()
    results: dict[str, list[Diagnostic]] = {}
    crashes: dict[str, str] = {}
    for model_type, text in texts.items():
        try:
            result = lint_bytes(f"{model_type}/config.json", text.encode("utf-8"), Selection())
        except Exception:
            crashes[model_type] = traceback.format_exc()
            continue
        results[model_type] = result.diagnostics
    return DefaultsRun(version, unbuildable, texts, results, crashes)


@pytest.fixture(scope="module")
def defaults() -> DefaultsRun:
    pytest.importorskip("transformers")
    return lint_defaults()


def default_error_keys(run: DefaultsRun) -> dict[tuple[str, str, str], Diagnostic]:
    """Every error on a default, keyed as in KNOWN_INVALID_DEFAULTS."""
    keys: dict[tuple[str, str, str], Diagnostic] = {}
    for model_type, diagnostics in run.results.items():
        for d in errors_of(diagnostics):
            keys[(model_type, d.code, d.pointer or "")] = d
    return keys


def test_defaults_mostly_build(defaults: DefaultsRun) -> None:
    """Some defaults are unbuildable in transformers itself; a flood means a broken harness."""
    total = len(defaults.texts) + len(defaults.unbuildable)
    assert total > 700
    listing = "\n".join(f"  {t}: {why}" for t, why in sorted(defaults.unbuildable.items()))
    share = len(defaults.unbuildable) / total
    assert share <= MAX_UNBUILDABLE_SHARE, (
        f"{len(defaults.unbuildable)} of {total} default configs do not build in transformers"
        f" {defaults.version}:\n{listing}"
    )


def test_unbuildable_defaults_are_the_reviewed_ones(defaults: DefaultsRun) -> None:
    """Under the pinned transformers, exactly the reviewed defaults fail to build, for the
    reviewed reasons: a new one is a harness problem or a transformers change to look at."""
    if defaults.version != PINNED_TRANSFORMERS:
        pytest.skip(
            f"transformers {defaults.version} is not the pinned {PINNED_TRANSFORMERS}: its"
            " unbuildable defaults were not reviewed (test_defaults_mostly_build bounds them)"
        )
    assert sorted(defaults.unbuildable) == sorted(KNOWN_UNBUILDABLE)
    for model_type, reason in KNOWN_UNBUILDABLE.items():
        assert reason in defaults.unbuildable[model_type], defaults.unbuildable[model_type]


def test_defaults_never_raise(defaults: DefaultsRun) -> None:
    assert not defaults.crashes, "\n".join(
        f"{model_type}:\n{trace}" for model_type, trace in sorted(defaults.crashes.items())
    )


def test_default_errors_are_reviewed_defects(defaults: DefaultsRun) -> None:
    """An error on a default that nobody reviewed is a dimlint false positive until shown not."""
    found = default_error_keys(defaults)
    unknown = sorted(key for key in found if key not in KNOWN_INVALID_DEFAULTS)
    if unknown:
        listing = "\n".join(f"  {key}: {found[key].message}" for key in unknown)
        pytest.fail(
            f"{len(unknown)} error findings on transformers {defaults.version} defaults are not"
            " in KNOWN_INVALID_DEFAULTS (a dimlint false positive, or a new true defect to"
            f" review):\n{listing}",
            pytrace=False,
        )


def test_known_invalid_defaults_are_not_stale(defaults: DefaultsRun) -> None:
    """A reviewed defect that no longer fires: transformers fixed it, or dimlint lost the rule."""
    found = default_error_keys(defaults)
    stale = sorted(key for key in KNOWN_INVALID_DEFAULTS if key not in found)
    assert not stale, f"KNOWN_INVALID_DEFAULTS entries that no longer fire: {stale}"


# ------------------------------------------------------------------------------- summary


class CorpusCounts(NamedTuple):
    """How often each (code, severity) fires on one corpus, and on how many of its configs."""

    name: str
    configs: int
    findings: Counter[tuple[str, str]]
    configs_with: Counter[tuple[str, str]]


def count_findings(name: str, results: dict[str, list[Diagnostic]]) -> CorpusCounts:
    """Findings per (code, severity) and configs per code over one corpus' lint results."""
    findings: Counter[tuple[str, str]] = Counter()
    configs_with: Counter[tuple[str, str]] = Counter()
    for diagnostics in results.values():
        findings.update((d.code, d.severity.label) for d in diagnostics)
        configs_with.update({(d.code, d.severity.label) for d in diagnostics})
    return CorpusCounts(name, len(results), findings, configs_with)


def lint_released(corpus: Path = CORPUS) -> dict[str, list[Diagnostic]]:
    """Findings of every released-model config of the corpus, by corpus path."""
    return {
        relative: lint_corpus_file(relative, (corpus / relative).read_bytes())
        for relative in released_files(corpus)
        if relative != MISSING
    }


def format_summary(corpora: list[CorpusCounts]) -> str:
    """A table of counts per (code, severity) per corpus, and each warning's reach."""
    keys = sorted({key for corpus in corpora for key in corpus.findings})
    header = ["code", "severity", *(f"{c.name} ({c.configs})" for c in corpora)]
    rows = [
        [code, severity, *(str(c.findings[(code, severity)]) for c in corpora)]
        for code, severity in keys
    ]
    lines = [_row(header), _row(["---"] * len(header))]
    lines += [_row(row) for row in rows]
    warning_codes = sorted({code for code, severity in keys if severity == "warning"})
    lines += ["", _row(["warning code", *(f"% of {c.name} with it" for c in corpora)])]
    lines.append(_row(["---"] * (len(corpora) + 1)))
    for code in warning_codes:
        shares = [
            f"{100 * c.configs_with[(code, 'warning')] / max(c.configs, 1):.1f}%" for c in corpora
        ]
        lines.append(_row([code, *shares]))
    return "\n".join(lines)


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def summary(defaults_run: DefaultsRun | None = None) -> str:
    """The report over released models and (when transformers is installed) its defaults."""
    corpora = [count_findings("released models", lint_released())]
    if defaults_run is None:
        try:
            defaults_run = lint_defaults()
        except ImportError:
            defaults_run = None
    if defaults_run is not None:
        name = f"transformers {defaults_run.version} defaults"
        corpora.append(count_findings(name, defaults_run.results))
    text = format_summary(corpora)
    if defaults_run is not None and defaults_run.unbuildable:
        text += "\n\ntransformers cannot build its own default (skipped):\n" + "\n".join(
            f"  {t}: {why}" for t, why in sorted(defaults_run.unbuildable.items())
        )
    return text


def test_summary_covers_both_corpora(defaults: DefaultsRun) -> None:
    """The report renders (shown with -s); every released config and default is counted."""
    shared_path("corpus", "MANIFEST.tsv")
    text = summary(defaults)
    print("\n" + text)  # shown with -s
    assert f"released models ({len(released_files())})" in text
    assert f"defaults ({len(defaults.results)})" in text


def main(argv: list[str], out: Callable[[str], None] = print) -> int:
    """``python tests/test_corpus.py --report``: print the per-rule counts of both corpora."""
    if argv != ["--report"]:
        out("usage: python tests/test_corpus.py --report")
        return 2
    if not CORPUS.exists():
        out(f"{CORPUS} is not available")
        return 2
    out(summary())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
