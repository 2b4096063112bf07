"""LSP's base protocol: ``Content-Length`` framed messages on stdin and stdout, safely.

:class:`Framed` reads messages as the base protocol frames them, refusing what would take the
server down: a ``Content-Length`` beyond :data:`MAX_MESSAGE` (``99999999999999`` would have it
allocate that much) is logged and skipped, and the stream is picked up again at the next
header. No pygls here: :mod:`.bootstrap` reads the first message with it before pygls is
imported, and the server keeps reading with it afterwards.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

#: The largest message read: far above any config or model file an editor holds.
MAX_MESSAGE = 64 * 2**20
#: Header lines are read in pieces of at most this many bytes.
_LINE = 1 << 16
_LENGTH = re.compile(rb"content-length:[ \t]*(\d+)[ \t]*\r?\n?$", re.IGNORECASE)


class Framed:
    """LSP messages from a byte stream: ``Content-Length`` headers, a blank line, the body.

    ``read_chunk(n)`` returns up to ``n`` bytes (``b""`` at the end): ``os.read`` on stdin's
    descriptor in the server, so that no buffered stdin object (whose lock a thread blocked in a
    read would hold at interpreter shutdown) is involved.
    """

    def __init__(self, read_chunk: Callable[[int], bytes], limit: int = MAX_MESSAGE) -> None:
        self._read_chunk = read_chunk
        self._buffer = bytearray()
        self._ended = False
        self.limit = limit
        self.refused = 0

    def _fill(self) -> bool:
        if self._ended:
            return False
        chunk = self._read_chunk(_LINE)
        if not chunk:
            self._ended = True
            return False
        self._buffer += chunk
        return True

    def _line(self) -> bytes:
        """The next line with its ending (at most :data:`_LINE` bytes; ``b""`` at the end)."""
        while True:
            end = self._buffer.find(b"\n", 0, _LINE)
            if end != -1 or len(self._buffer) >= _LINE:
                cut = end + 1 if end != -1 else _LINE
                line = bytes(self._buffer[:cut])
                del self._buffer[:cut]
                return line
            if not self._fill():
                line = bytes(self._buffer)
                self._buffer.clear()
                return line

    def _exactly(self, length: int) -> bytes:
        while len(self._buffer) < length:
            if not self._fill():
                break
        body = bytes(self._buffer[:length])
        del self._buffer[:length]
        return body

    def read(self) -> bytes | None:
        """The next body; ``b""`` for a refused message; None at the end of the input."""
        length: int | None = None
        while True:
            line = self._line()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                if length is not None:
                    break
                continue  # a blank line without a header before it: nothing to read yet
            found = _LENGTH.search(line)  # search: a header after stray bytes resynchronizes
            if found is not None:
                length = int(found.group(1))
        if length > self.limit:
            self.refused += 1
            import logging  # not at import: initialize is answered before logging is loaded

            logging.getLogger("dimlint.server").error(
                "refused a message of %d bytes (at most %d are read); skipping to the next header",
                length,
                self.limit,
            )
            return b""
        body = self._exactly(length)
        if len(body) < length:
            return None
        return body


class Writer:
    """Frames and writes messages to stdout (used until pygls takes over)."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.lock = threading.Lock()

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}, separators=(",", ":")).encode()
        with self.lock:
            self.stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.stream.flush()

    def error(self, ident: Any, code: int, message: str) -> None:
        self.send({"id": ident, "error": {"code": code, "message": message}})
