"""Lint a launch script: Megatron's model arguments (``--hidden-size 4096``) in a ``.sh`` file.

The arguments are read by :mod:`dimlint.sources.shellargs` into the document the YAML front end
judges (:func:`dimlint.lint.yaml_front.lint_document`), so a script and a Megatron test YAML
with the same arguments get the same findings, located at the literal that takes effect (the
value after the argument, or the variable assignment it refers to) and fixed there.
"""

from __future__ import annotations

from dimlint.lint.results import FileResult
from dimlint.lint.selection import Selection


def lint_shell(path: str, data: bytes, selection: Selection) -> FileResult:
    """Lint the bytes of a shell script named ``path``."""
    from dimlint.sources import shellargs

    result = FileResult(path)
    if not shellargs.may_have_model(data):
        result.skipped = "no model arguments (--hidden-size, --num-attention-heads, --num-layers)"
        return result
    text = data.decode("utf-8", errors="replace")
    from dimlint.lint.yaml_front import lint_document

    return lint_document(path, shellargs.load(path, text), selection, result)
