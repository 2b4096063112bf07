"""The ``ast`` reading of Python files reports exactly what the libcst reading reports.

:mod:`dimlint.sources.python.fastscan` lets a file that holds no finding skip libcst. That is
only sound if, for every file, ``lint_python`` with the fast reading gives the same diagnostics
(code, message, span, fix), the same count of configs and layers read and the same skip reason
as the libcst reading alone. Both run here over real model code — the fixtures, a spread of
transformers' ``configuration_*.py`` and ``models/`` files, the shared corpus of training repos,
litgpt's config table — and over constructs where ``ast`` and libcst see different trees.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from conftest import shared_path

from dimlint.config.spec import INT_FIELD_NAMES, ModelSpec
from dimlint.lint import python_front
from dimlint.lint.python_front import lint_python
from dimlint.lint.results import FileResult
from dimlint.lint.selection import Selection
from dimlint.sources.python import file as pyfile

FIXTURES = Path(__file__).parent / "python_fixtures"
LITGPT = Path(os.environ.get("DIMLINT_LITGPT_CONFIG", "/tmp/litgpt/litgpt/config.py"))


def _read(spec: ModelSpec) -> tuple[object, ...]:
    """What ``mem``, ``plan`` and ``shapes`` take from a spec: its type, place and dimensions."""
    return (spec.model_type, spec.pointer, *(getattr(spec, name) for name in INT_FIELD_NAMES))


def outcome(result: FileResult) -> tuple[object, ...]:
    diagnostics = [(d.code, d.message, d.span, d.fix) for d in result.diagnostics]
    models = [[_read(spec) for spec in specs] for specs in result.models]
    return (diagnostics, result.read, result.skipped, models)


def assert_same(path: Path, selection: Selection | None = None) -> None:
    data = path.read_bytes()
    chosen = selection or Selection()
    fast = lint_python(str(path), data, chosen)
    slow = lint_python(str(path), data, chosen, fast=False)
    assert outcome(fast) == outcome(slow), path


def transformers_models() -> Path | None:
    spec = importlib.util.find_spec("transformers")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "models"


def spread(paths: list[Path], count: int) -> list[Path]:
    """``count`` paths spread evenly over the sorted list (deterministic, no sampling)."""
    paths = sorted(paths)
    step = max(len(paths) // count, 1)
    return paths[::step][:count]


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.py")))
def test_fixtures_read_alike(name: str) -> None:
    assert_same(FIXTURES / name, Selection(extend_select=("ALL",)))


def test_transformers_files_read_alike() -> None:
    models = transformers_models()
    if models is None:
        pytest.skip("transformers is not installed")
    configs = spread(list(models.glob("*/configuration_*.py")), 12)
    others = spread([p for p in models.glob("*/*.py") if "configuration_" not in p.name], 24)
    for path in (*configs, *others):
        assert_same(path)


def test_shared_training_repos_read_alike() -> None:
    repos = shared_path("corpus", "repos")
    for path in spread(list(repos.rglob("*.py")), 60):
        assert_same(path)


def test_litgpt_table_reads_alike() -> None:
    if not LITGPT.is_file():
        pytest.skip(f"litgpt's config.py is not at {LITGPT}")
    assert_same(LITGPT)


TRICKY = {
    # "a" "b" is a ConcatenatedString to libcst: such a dict is not a config
    "concatenated_key": 'C = {"hidden" "_size": 4096, "num_attention_heads": 30, "n_layer": 2}\n',
    "single_key": 'C = {"hidden_size": 4096, "num_attention_heads": 30, "num_hidden_layers": 2}\n',
    "infinite": "C = dict(hidden_size=1e999, num_attention_heads=30, num_hidden_layers=2)\n",
    "scopes": (
        "H = 4096\n"
        "def f(H=3):\n    return dict(hidden_size=H, num_attention_heads=30, n_layer=2)\n"
        "g = lambda H: dict(hidden_size=H, num_attention_heads=30, n_layer=2)\n"
        "x = [dict(hidden_size=H, num_attention_heads=30, n_layer=2) for H in (1, 2)]\n"
        "try:\n    pass\nexcept* ValueError as H:\n    pass\n"
    ),
    "rebound": "H = 4096\nH += 1\nC = dict(hidden_size=H, num_attention_heads=30, n_layer=2)\n",
    "global": (
        "H = 4096\ndef f():\n    global H\n    H = 3\n"
        "C = dict(hidden_size=H, num_attention_heads=30, n_layer=2)\n"
    ),
    "star_args": (
        "import torch.nn as nn\nL = nn.Linear(4096, 30, *rest, bias=False)\n"
        "M = nn.MultiheadAttention(4096, 30, **kw)\n"
        "E = nn.MultiheadAttention(embed_dim=4096, num_heads=30)\n"
    ),
    "class_config": (
        "from dataclasses import dataclass\n@dataclass\nclass ModelArgs:\n"
        "    dim: int = 4096\n    n_heads: int = 30\n    n_layers: int = 2\n"
        "    def __init__(self, dim=4096, n_heads=30, *, n_layers=2):\n        pass\n"
        "A = ModelArgs(n_heads=31)\n"
    ),
    "tuple_values": (
        "C = dict(hidden_size=4096, num_attention_heads=32, num_hidden_layers=2,"
        ' layer_types=("full_attention",))\n'
        "@dataclass\nclass ModelArgs:\n    hidden_size: int = 4096\n"
        "    num_attention_heads: int = 32\n    num_hidden_layers: int = 3\n"
        '    layer_types: tuple = "full_attention", "sliding_attention"\n'
    ),
    "non_ascii": (
        "# ß, é and 漢字 before the values move byte columns away from characters\n"
        'C = dict(name="漢字ü", hidden_size=4096, num_attention_heads=30, n_layer=2)  # ü\n'
        'D = {"ñame": "é", "hidden_size": 4100, "num_attention_heads": 32, "n_layer": 2}\n'
    ),
    "crlf": (
        "H = 4096\r\nC = dict(\r\n    hidden_size=H,\r\n    num_attention_heads=30, n_layer=2)\r\n"
    ),
    "form_feed": "\x0cH = 4096\n\x0c\nC = dict(hidden_size=H, num_attention_heads=30, n_layer=2)\n",
    "parenthesised": (
        "C = dict(hidden_size=(4096), num_attention_heads=((30)), n_layer=-(2))\n"
        "D = dict(hidden_size=(4096 + 2), num_attention_heads=-30, n_layer=(2))\n"
    ),
    "key_rename": (
        "from transformers import LlamaConfig\n"
        "c = LlamaConfig(hiden_size=4096, num_attention_heads=30)\n"
        'd = {"model_type": "llama", "hiden_size": 4096, "num_attention_heads": 30}\n'
    ),
    "class_and_init": (
        "class \\\n    ToyConfig:\n"
        "    def __init__(self, vocab_size=32000, hidden_size=4096, num_attention_heads=30,\n"
        "                 num_hidden_layers=2, *, intermediate_size=11000):\n        pass\n"
        "class \\\n  BigConfig(ToyConfig):\n    pass\n"
        "t = ToyConfig(32001, 4100)\n"
    ),
    "constant_fixes": (
        "import torch.nn as nn\nHIDDEN = 4100\nHEADS = 32\n"
        "attn = nn.MultiheadAttention(HIDDEN, HEADS)\n"
        "C = dict(hidden_size=HIDDEN, num_attention_heads=HEADS, n_layer=2)\n"
        "lin = nn.Linear(in_features=HIDDEN, out_features=0)\n"
    ),
    "noqa_comments": (
        's = "# noqa: DL101"\n'
        "C = dict(hidden_size=4096, num_attention_heads=30, n_layer=2)  # noqa: DL101   \n"
        "D = dict(hidden_size=4096, num_attention_heads=30, n_layer=2)  # NOQA:DL999,E501\n"
        '"""# noqa: DL201\n"""\n'
        "E = dict(hidden_size=4096, num_attention_heads=30, n_layer=2)  # noqa\n"
    ),
    "walrus_and_with": (
        "with open(x) as H:\n    pass\nif (N := 30):\n    pass\n"
        "C = dict(hidden_size=H, num_attention_heads=N, n_layer=2)\n"
    ),
}


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_tricky_constructs_read_alike(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.py"
    path.write_text(TRICKY[name], encoding="utf-8")
    assert_same(path, Selection(extend_select=("ALL",)))


def test_clean_file_is_not_parsed_by_libcst(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The point of the fast reading: a file without findings never reaches libcst."""
    path = tmp_path / "modeling_x.py"
    path.write_text(
        "import torch.nn as nn\nclass Block(nn.Module):\n    def __init__(self, config):\n"
        "        self.proj = nn.Linear(config.hidden_size, config.hidden_size)\n",
        encoding="utf-8",
    )

    def refuse(text: str) -> object:
        raise AssertionError("libcst was asked to parse a clean file")

    monkeypatch.setattr(pyfile, "parse", refuse)
    result = lint_python(str(path), path.read_bytes(), Selection())
    assert result.diagnostics == []
    assert result.read == (0, 1)


def test_findings_and_noqa_are_placed_without_libcst(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Findings, their fixes and noqa comments are placed from ``ast``: libcst never parses."""
    bad = tmp_path / "bad.py"
    bad.write_text("C = dict(hidden_size=4096, num_attention_heads=30, n_layer=2)  # noqa: DL7\n")
    quiet = tmp_path / "quiet.py"
    quiet.write_text("x = 1  # noqa: DL101\n")
    files = (bad, quiet)
    slow = [lint_python(str(p), p.read_bytes(), Selection(), fast=False) for p in files]
    expected = [outcome(result) for result in slow]

    def refuse(text: str) -> object:
        raise AssertionError("libcst was asked to parse a file ast reads")

    monkeypatch.setattr(pyfile, "parse", refuse)
    found = [lint_python(str(p), p.read_bytes(), Selection()) for p in files]
    assert [outcome(result) for result in found] == expected
    assert found[0].diagnostics[0].fix is not None
    assert [d.code for d in found[1].diagnostics] == ["DL701"]


def test_a_parenthesised_tuple_is_placed_by_libcst(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ast`` starts ``(1, 2)`` and ``(1), 2`` at the same ``(``: a finding on such a value is
    placed by libcst, where the tuple's syntactic extent leaves its parentheses out."""
    calls: list[str] = []
    parse = pyfile.parse

    def counting(text: str) -> object:
        calls.append(text)
        return parse(text)

    monkeypatch.setattr(pyfile, "parse", counting)
    path = tmp_path / "types.py"
    path.write_text(TRICKY["tuple_values"], encoding="utf-8")
    result = lint_python(str(path), path.read_bytes(), Selection())
    assert len(calls) == 1
    codes = {(d.code, path.read_text()[d.span.start : d.span.end]) for d in result.diagnostics}
    assert ("DL602", '"full_attention",') in codes


@pytest.mark.parametrize(
    "source",
    [
        "import os  # noqa: F401\n",
        "import os  # noqa\nC = dict(hidden_size=4096, num_attention_heads=32, n_layer=2)\n",
        "x = 1  # noqa: DL101\n",
        "x = 1  # NOQA: DLX1\n",
    ],
)
def test_noqa_files_read_alike(source: str, tmp_path: Path) -> None:
    path = tmp_path / "noqa_case.py"
    path.write_text(source, encoding="utf-8")
    assert_same(path)


ROUNDINGS = [
    "n = next_multiple_of_n(vocab_size, n=128)\n",
    "v = find_multiple(config.vocab_size, 64)  # padded\n",
    "x = 1\ny = pad_to_multiple_of( self.cfg.vocab_size )\nz = round_up(vocab_size, 8)\n",
    "mymultiple_x(vocab_size) and ceil_to(vocab_size, 2)\n",
    "über_pad_vocab(vocab_size)\n",
    "multiple(vocab_sizes)\n",
    "no rounding here: vocab_size = 32000\n",
]


@pytest.mark.parametrize("text", ROUNDINGS)
def test_code_rounding_is_the_first_match_of_the_full_pattern(text: str) -> None:
    found = python_front.CODE_ROUNDING.search(text)
    expected = found.group(0).split("(")[0] if found else None
    assert python_front.code_rounding(text) == expected


def test_code_rounding_on_real_code() -> None:
    paths = list(FIXTURES.glob("*.py"))
    models = transformers_models()
    if models is not None:
        paths += spread(list(models.glob("*/modeling_*.py")), 40)
    if LITGPT.is_file():
        paths.append(LITGPT)
    for path in paths:
        text = path.read_text(encoding="utf-8")
        found = python_front.CODE_ROUNDING.search(text)
        expected = found.group(0).split("(")[0] if found else None
        assert python_front.code_rounding(text) == expected, path
