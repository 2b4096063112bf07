"""JSON-pointer helpers (RFC 6901): every value of a config is located by its pointer."""

from __future__ import annotations


def escape_pointer_token(token: str) -> str:
    """RFC 6901 escaping of one reference token."""
    return token.replace("~", "~0").replace("/", "~1")


def unescape_pointer_token(token: str) -> str:
    """The key an RFC 6901 reference token names (``~1`` is ``/``, ``~0`` is ``~``)."""
    return token.replace("~1", "/").replace("~0", "~") if "~" in token else token
