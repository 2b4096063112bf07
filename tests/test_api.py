"""The Python API (``dimlint.check``/``mem``/``plan``/``assert_valid``) against the CLI.

Every kind of source — a file, a folder, a Hub id, a ``dict``, a transformers
``PretrainedConfig`` — is checked through the API and the same config through ``dimlint``'s
command line; the API's findings rendered by the JSON reporter, its ``mem`` dict and its
plan's ``data`` must equal the CLI's JSON output, field for field (only the path differs for an
in-memory config, which has no file).
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import dimlint
from dimlint.cli import main
from dimlint.report import json_format
from tests.hubserver import SHA, FakeHub, hub, llama

__all__ = ["hub", "llama"]  # fixtures

REPO = Path(__file__).resolve().parent.parent
BROKEN = REPO / "examples" / "broken-llama" / "config.json"
#: Decoder families (and their defaults, as transformers builds them) the API is run on.
MODEL_TYPES = [
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen2_moe",
    "qwen3",
    "qwen3_moe",
    "gemma",
    "gemma2",
    "phi3",
    "gpt2",
    "gpt_neox",
    "falcon",
    "deepseek_v3",
    "olmo2",
]
#: A deployment that many defaults cannot meet, so that the comparison has findings to compare.
TARGETS = ["vllm:tp=3", "megatron:tp=4,pp=3"]


def cli(*argv: str) -> tuple[int, Any]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    assert code in (0, 1), err.getvalue()
    return code, json.loads(out.getvalue())


def rendered(diagnostics: list[dimlint.Diagnostic]) -> list[dict[str, Any]]:
    """The API's findings as ``check --output-format json`` prints them."""
    result: list[dict[str, Any]] = json.loads(json_format.render(diagnostics, {}))
    return result


def without_file(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in f.items() if k != "file"} for f in findings]


def check_cli(path: Path | str, *extra: str) -> list[dict[str, Any]]:
    _, found = cli("check", str(path), "--no-config", "--output-format", "json", *extra)
    return list(found)


def test_file_and_folder_match_the_cli(tmp_path: Path) -> None:
    found = dimlint.check(BROKEN)
    assert found, "the broken example has findings"
    assert rendered(found) == check_cli(BROKEN)
    assert rendered(dimlint.check(str(BROKEN.parent))) == check_cli(BROKEN.parent)
    chosen = dimlint.check(BROKEN, select=["DL1"], ignore="DL102", targets=TARGETS)
    assert rendered(chosen) == check_cli(
        BROKEN, "--select", "DL1", "--ignore", "DL102", *(f"--target={t}" for t in TARGETS)
    )
    assert all(d.code.startswith("DL1") and d.code != "DL102" for d in chosen)


def test_dict_matches_the_cli_on_the_same_text(tmp_path: Path) -> None:
    value = json.loads(BROKEN.read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps(value, indent=2))
    found = dimlint.check(value, budget="1xRTX4090-24GB", context=32768)
    assert {d.path for d in found} == {"<dict>"}
    expected = check_cli(path, "--budget", "1xRTX4090-24GB", "--context", "32768")
    assert without_file(rendered(found)) == without_file(expected)
    with pytest.raises(dimlint.RejectedInput):  # errors: no numbers, unless forced
        dimlint.mem(value, context=8192)
    forced = cli("mem", str(path), "--context", "8192", "--force", "--output-format", "json")[1]
    assert dimlint.mem(value, context=8192, force=True) == {**forced, "path": "<dict>"}
    assert forced["invalid"]["note"].startswith("INVALID MODEL")


def _saved(config: Any, folder: Path) -> Path:
    """The config as a file, written the way the API reads the object (to_dict, indent 2)."""
    folder.mkdir()
    path = folder / "config.json"
    path.write_text(json.dumps(config.to_dict(), indent=2, default=str))
    return path


@pytest.mark.parametrize("model_type", MODEL_TYPES)
def test_pretrained_config_matches_the_cli(model_type: str, tmp_path: Path) -> None:
    transformers = pytest.importorskip("transformers")
    config = transformers.AutoConfig.for_model(model_type)
    path = _saved(config, tmp_path / model_type)
    name = f"<{type(config).__name__}>"

    found = dimlint.check(config, targets=TARGETS, select="ALL")
    assert {d.path for d in found} <= {name}
    expected = check_cli(path, "--select", "ALL", *(f"--target={t}" for t in TARGETS))
    assert without_file(rendered(found)) == without_file(expected)

    memory = dimlint.mem(config, budget="2xH100-80GB")
    _, mem_cli = cli("mem", str(path), "--budget", "2xH100-80GB", "--output-format", "json")
    assert memory == {**mem_cli, "path": name}
    assert memory["params"]["total"] > 0

    plan = dimlint.plan(config, gpu="H100-80GB", max_gpus=4)
    _, plan_cli = cli(
        "plan", str(path), "--gpu", "H100-80GB", "--max-gpus", "4", "--output-format", "json"
    )
    assert plan.data == {**plan_cli, "path": name}


def test_hub_id_matches_the_cli(hub: FakeHub, llama: Path) -> None:
    found = dimlint.check("hf://org/llama")
    assert any(d.code == "DL610" for d in found)
    assert rendered(found) == check_cli("hf://org/llama")
    memory = dimlint.mem("org/llama@main")
    assert memory["path"] == f"hf://org/llama@{SHA}/config.json"
    assert memory == cli("mem", "hf://org/llama", "--output-format", "json")[1]
    assert (
        dimlint.plan("hf://org/llama").data
        == cli("plan", "org/llama", "--output-format", "json")[1]
    )
    assert not any(d.code == "DL610" for d in dimlint.check("hf://org/llama", weights=False))


def test_assert_valid_lists_every_error() -> None:
    errors = [d for d in dimlint.check(BROKEN) if d.severity is dimlint.Severity.ERROR]
    assert len(errors) >= 2
    with pytest.raises(dimlint.ConfigErrors) as raised:
        dimlint.assert_valid(BROKEN)
    assert raised.value.diagnostics == errors
    lines = str(raised.value).splitlines()
    assert len(lines) == 1 + len(errors)
    for diagnostic, line in zip(errors, lines[1:], strict=True):
        assert diagnostic.code in line
        assert f":{diagnostic.span.start_pos.line}:" in line if diagnostic.span else True
    assert isinstance(raised.value, dimlint.DimlintError)
    dimlint.assert_valid(REPO / "examples" / "qwen2-7b" / "config.json")  # valid: no exception
    with pytest.raises(dimlint.ConfigErrors):  # warnings fail at fail_level="warning"
        dimlint.assert_valid(BROKEN, select="DL2", fail_level="warning")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: dimlint.check("no/such/dir/config.json"), "cannot read"),
        (lambda: dimlint.check(BROKEN, select="DL9"), "matches no rule"),
        (lambda: dimlint.check(BROKEN, budget="8xNOPE-1GB"), "NOPE"),
        (lambda: dimlint.check(42), "cannot read a config from a int"),
        (lambda: dimlint.mem({"name": "not a model"}), "not a model config"),
        (
            lambda: dimlint.plan({"model_type": "llama", "hidden_size": "4096"}),
            r'<dict>:\d+:\d+: DL003 \[error\] hidden_size is the string "4096"',
        ),
        (lambda: dimlint.plan(BROKEN, gpu="NOPE", force=True), "NOPE"),
    ],
)
def test_problems_are_dimlint_errors(call: Any, message: str) -> None:
    with pytest.raises(dimlint.DimlintError, match=message):
        call()


SMALL = {
    "model_type": "llama",
    "hidden_size": 64,
    "num_attention_heads": 4,
    "num_hidden_layers": 2,
    "intermediate_size": 128,
    "vocab_size": 256,
}


@pytest.mark.parametrize(
    ("function", "options", "named"),
    [
        ("assert_valid", {"fail_level": "bogus"}, "fail_level"),
        ("assert_valid", {"fail_level": 3}, "fail_level"),
        ("assert_valid", {"selekt": "DL1"}, "selekt"),
        ("check", {"select": [None]}, "select"),
        ("check", {"ignore": 5}, "ignore"),
        ("check", {"extend_select": [b"DL1"]}, "extend_select"),
        ("check", {"targets": 5}, "targets"),
        ("check", {"targets": [None]}, "targets"),
        ("check", {"budget": 8}, "budget"),
        ("check", {"context": "4096"}, "context"),
        ("check", {"batch": True}, "batch"),
        ("check", {"weights": "no"}, "weights"),
        ("mem", {"tp": "2"}, "tp"),
        ("mem", {"pp": 0}, "pp"),
        ("mem", {"zero": 7}, "zero"),
        ("mem", {"dp": 1.5}, "dp"),
        ("mem", {"optimizer": "lion"}, "optimizer"),
        ("mem", {"recompute": True}, "recompute"),
        ("mem", {"attention": "flash2"}, "attention"),
        ("mem", {"dtype": 16}, "dtype"),
        ("mem", {"training": "yes"}, "training"),
        ("mem", {"config": 5}, "config"),
        ("plan", {"gpu": 5}, "gpu"),
        ("plan", {"max_gpus": "8"}, "max_gpus"),
        ("plan", {"max_gpus": 0}, "max_gpus"),
        ("plan", {"kv_dtype": "fp64"}, "kv_dtype"),
        ("plan", {"no_config": "yes"}, "no_config"),
        ("plan", {"force": 1}, "force"),
        ("mem", {"force": None}, "force"),
    ],
)
def test_every_wrong_option_is_a_usage_error_naming_it(
    function: str, options: dict[str, Any], named: str
) -> None:
    with pytest.raises(dimlint.UsageError) as raised:
        getattr(dimlint, function)(SMALL, **options)
    assert str(raised.value).startswith(named) or f"{named!r}" in str(raised.value), raised.value


#: Every public function of the API, and the nearest option to a misspelling of one of its own.
PUBLIC = [
    ("check", "selct", "select"),
    ("mem", "contxt", "context"),
    ("plan", "max_gpu", "max_gpus"),
    ("assert_valid", "fail_levle", "fail_level"),
]


@pytest.mark.parametrize(("function", "misspelt", "meant"), PUBLIC)
def test_an_unknown_keyword_is_a_usage_error_naming_it(
    function: str, misspelt: str, meant: str
) -> None:
    """A keyword the function does not take is a UsageError naming it and the option meant
    (Python's own TypeError once); one far from every option names none."""
    call = getattr(dimlint, function)
    with pytest.raises(dimlint.UsageError) as raised:
        call(SMALL, **{misspelt: 1})
    message = str(raised.value)
    assert message.startswith(f"{misspelt}: unknown option of {function}()"), message
    assert f"did you mean {meant!r}?" in message
    assert meant in message.split("(options: ")[1]
    with pytest.raises(dimlint.UsageError) as raised:
        call(SMALL, zzzz=1)
    assert str(raised.value).startswith(f"zzzz: unknown option of {function}() (options: ")


@pytest.mark.parametrize("function", [entry[0] for entry in PUBLIC])
def test_positional_misuse_is_a_usage_error(function: str) -> None:
    """Options passed by position, no source, or the source twice: UsageError, not TypeError."""
    call = getattr(dimlint, function)
    with pytest.raises(dimlint.UsageError, match=rf"^{function}\(\) takes 1 positional"):
        call(SMALL, "h100")
    with pytest.raises(dimlint.UsageError, match=rf"^source: missing from {function}\(\)"):
        call()
    with pytest.raises(dimlint.UsageError, match=rf"^source: given twice to {function}\(\)"):
        call(SMALL, source=SMALL)


#: Wrong values of any option: of no type an option takes, a word no option knows, a negative
#: number, a list holding None.
WRONG_VALUES = [object(), "bogus", -1, [None]]


@pytest.mark.parametrize("function", [entry[0] for entry in PUBLIC])
def test_every_wrong_value_of_every_option_names_it(function: str) -> None:
    """Each keyword option of each public function, given each wrong value: a UsageError whose
    message starts with the option's API name (``kv_dtype``, not ``--kv-dtype``; ``gpu``, not
    only "unknown GPU"), or no error where the value happens to be valid; never another
    exception."""
    import inspect

    call = getattr(dimlint, function)
    keyword = inspect.Parameter.KEYWORD_ONLY
    names = [n for n, p in inspect.signature(call).parameters.items() if p.kind is keyword]
    assert names
    unnamed = []
    for name in names:
        for value in WRONG_VALUES:
            try:
                call(SMALL, **{name: value})
            except dimlint.UsageError as error:
                if not str(error).startswith(name):
                    unnamed.append((name, value, str(error)))
    assert unnamed == []


def test_lint_hub_binds_its_arguments_too() -> None:
    from dimlint.api import lint_hub

    with pytest.raises(dimlint.UsageError, match=r"^weight: unknown option of lint_hub"):
        lint_hub(None, None, weight=False)  # type: ignore[arg-type, call-arg]


def test_rejected_input_names_its_findings() -> None:
    with pytest.raises(dimlint.RejectedInput) as raised:
        dimlint.mem({**SMALL, "num_attention_heads": "4"})
    lines = str(raised.value).splitlines()
    assert lines[0] == "1 finding in the model config:"
    [finding] = raised.value.diagnostics
    assert lines[1] == (
        f"  <dict>:{finding.span.start_pos.line}:{finding.span.start_pos.column}: DL003 [error]"
        f" {finding.message}"
    )


def test_memory_is_the_package_and_mem_the_function() -> None:
    import importlib
    import types

    assert isinstance(dimlint.memory, types.ModuleType)
    assert dimlint.memory is importlib.import_module("dimlint.memory")
    assert type(dimlint.memory) is types.ModuleType  # no class swapped in to make it callable
    assert dimlint.mem(SMALL)["params"]["total"] > 0


def test_the_api_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    dimlint.check(BROKEN, targets=TARGETS)
    dimlint.mem(BROKEN, force=True)
    dimlint.plan(BROKEN, force=True)
    with pytest.raises(dimlint.UsageError):
        dimlint.check("no/such/file.json")
    assert capsys.readouterr() == ("", "")


PROBE = """
import json, sys
import dimlint
before = sorted(m for m in ("dimlint.api", "dimlint.sources.hub") if m in sys.modules)
from dimlint.cli import main
import io
main(["check", sys.argv[1]], io.StringIO(), io.StringIO())
after_cli = sorted(m for m in ("dimlint.api", "dimlint.sources.hub") if m in sys.modules)
dimlint.check({"model_type": "llama", "hidden_size": 4100, "num_attention_heads": 32})
heavy = ("transformers", "torch", "libcst", "huggingface_hub")
heavy = sorted(m for m in heavy if m in sys.modules)
print(json.dumps({"before": before, "after_cli": after_cli, "heavy": heavy}))
"""


def test_lazy_imports() -> None:
    """``import dimlint`` and a JSON ``check`` load neither the API nor the Hub reader, and the
    API on a dict imports no transformers, torch, libcst or huggingface_hub."""
    output = subprocess.run(
        [sys.executable, "-c", PROBE, str(BROKEN)],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    ).stdout
    assert json.loads(output) == {"before": [], "after_cli": [], "heavy": []}
