"""``dimlint server``: a language server over stdio (the optional ``dimlint[lsp]`` extra).

The plain install does not include pygls: without it this command says how to get it and
exits 2, like any other usage error. See :mod:`.app` for how linting is scheduled.
"""

from __future__ import annotations

import importlib.util
from typing import TextIO

MISSING = (
    "dimlint: error: `dimlint server` needs the language server extra: pip install 'dimlint[lsp]'\n"
)


def run_server(err: TextIO) -> int:
    """Run the server on stdin/stdout; exit code 2 when pygls is not installed."""
    if importlib.util.find_spec("pygls") is None or importlib.util.find_spec("lsprotocol") is None:
        err.write(MISSING)
        return 2
    from dimlint.commands.server.bootstrap import serve

    return serve()
