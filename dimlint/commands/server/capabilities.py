"""What the server can do, as ``initialize`` answers it: known before pygls is imported.

:mod:`.bootstrap` answers ``initialize`` with :func:`capabilities` while pygls is still being
imported; the feature registration in :mod:`.app` uses the same constants, and a test holds the
two equal to what pygls computes from the registered features.
"""

from __future__ import annotations

from typing import Any

#: The code actions the server offers.
CODE_ACTION_KINDS = ["quickfix", "source.fixAll.dimlint"]
#: ``DiagnosticOptions`` of pull diagnostics.
DIAGNOSTIC_OPTIONS = {
    "identifier": "dimlint",
    "interFileDependencies": False,
    "workspaceDiagnostics": False,
}


def position_encoding(params: dict[str, Any]) -> str:
    """The client's first offered encoding the server supports (UTF-16 without an offer)."""
    general = _get(params, "capabilities", "general")
    offered = general.get("positionEncodings") if isinstance(general, dict) else None
    for encoding in offered if isinstance(offered, list) else []:
        if encoding in ("utf-8", "utf-16", "utf-32"):
            return str(encoding)
    return "utf-16"


def capabilities(params: dict[str, Any]) -> dict[str, Any]:
    """The server's capabilities for a client's ``initialize`` params."""
    return {
        "positionEncoding": position_encoding(params),
        "textDocumentSync": {"openClose": True, "change": 2, "save": True},
        "hoverProvider": True,
        "codeActionProvider": {"codeActionKinds": list(CODE_ACTION_KINDS)},
        "diagnosticProvider": dict(DIAGNOSTIC_OPTIONS),
        "executeCommandProvider": {"commands": []},
        "workspace": {
            "workspaceFolders": {"supported": True, "changeNotifications": True},
            "fileOperations": {},
        },
    }


def _get(value: Any, *keys: str) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value
