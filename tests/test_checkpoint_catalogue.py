"""The catalogue's ``json file="NAME"`` blocks: files beside an example's config."""

from __future__ import annotations

from pathlib import Path

import pytest

from dimlint.checks import catalogue
from dimlint.checks.catalogue import Beside, CatalogueError, Marker, RuleDoc
from dimlint.sources.safetensors import Header, read_header

TEXT = """---
code: DL610
name: checkpoint-shape
---
# checkpoint-shape (DL610)

```json example
{"model_type": "llama"}
```

```json file="model.safetensors"
{"a": {"dtype": "BF16", "shape": [2, 3]}, "b": {"dtype": "F32", "shape": [5]}}
```

```json file="model.safetensors.index.json"
{"metadata": {"total_size": 1}}
//                          ^ DL503
```

```json use-instead
{"model_type": "llama"}
```
"""


def _doc(text: str, tmp_path: Path) -> RuleDoc:
    path = tmp_path / "DL610-checkpoint-shape.md"
    path.write_text(text, encoding="utf-8")
    return RuleDoc(
        "DL610", "checkpoint-shape", "error", "never", "0.1.0", True, path, text, text, ()
    )


def test_file_blocks_attach_to_the_example_before_them(tmp_path: Path) -> None:
    example, use_instead = catalogue.examples(_doc(TEXT, tmp_path))
    assert [beside.name for beside in example.files] == [
        "model.safetensors",
        "model.safetensors.index.json",
    ]
    assert example.files[1] == Beside(
        "model.safetensors.index.json",
        '{"metadata": {"total_size": 1}}\n',
        (Marker("DL503", 1, 29, 30),),
    )
    assert use_instead.files == ()


def test_write_example_makes_real_files(tmp_path: Path) -> None:
    example = catalogue.examples(_doc(TEXT, tmp_path))[0]
    folder = tmp_path / "out"
    folder.mkdir()
    config = catalogue.write_example(example, folder)
    assert config == folder / "config.json"
    header = read_header(str(folder / "model.safetensors"))
    assert isinstance(header, Header)
    assert {name: t.shape for name, t in header.tensors.items()} == {"a": (2, 3), "b": (5,)}
    assert header.file_size == header.bytes_read + 12 + 20
    assert (folder / "model.safetensors.index.json").read_text().startswith('{"metadata"')


@pytest.mark.parametrize(
    "text",
    [
        '---\n---\n```json file="tokenizer.json"\n{}\n```\n',  # nothing to attach to
        '---\n---\n```json use-instead\n{}\n```\n```json file="t.json"\n{}\n//^ DL605\n```\n',
    ],
)
def test_file_block_errors(tmp_path: Path, text: str) -> None:
    with pytest.raises(CatalogueError):
        catalogue.examples(_doc(text, tmp_path))
