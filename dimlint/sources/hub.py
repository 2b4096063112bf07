"""Read a model on the Hugging Face Hub: its small files and its safetensors headers, never weights.

Spelling (DESIGN.md, *Hub ids*): ``hf://org/name[@revision]`` always means the Hub; a bare
``org/name[@revision]`` does too, but only where no such local path exists, so a local folder
named ``org/name`` is never shadowed (and ``models/config.json`` or ``configs/train.yaml``, a
typo, still reads as a missing file: a spelling that looks like a file, :func:`looks_like_a_file`,
is never taken for a Hub id).

What is fetched, through ``huggingface_hub`` (the optional extra ``dimlint[hub]``):

* the model info (one API call: the commit sha a revision resolves to, and the file list);
* ``config.json``, ``tokenizer_config.json``, ``added_tokens.json`` and the safetensors index,
  with ``hf_hub_download`` into the ordinary HF cache (so a second run, or a model already
  downloaded, costs no transfer); ``tokenizer.json`` (up to tens of MB) is read only if cached;
* each safetensors shard's header by two HTTP range requests (the 8-byte length, then the JSON),
  as ``huggingface_hub``'s ``get_safetensors_metadata`` does, but without its speculative 100 kB
  read, so not one byte of tensor data is transferred. A shard already in the cache is read there.

``HF_ENDPOINT``, ``HF_TOKEN``, ``HF_HUB_OFFLINE`` and ``HF_HUB_CACHE``/``HF_HOME`` are read when
a model is fetched (not when ``huggingface_hub`` was imported). Offline, everything comes from
the cache: the files of the cached snapshot, and the headers of the shards cached there.

Every failure — the extra not installed, a gated, private or missing repository or revision, a
missing file, a network error — is a :class:`HubError` with a one-line message naming the model
and what to do. This module reads; it knows no rule.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import Any

from dimlint.errors import UsageError
from dimlint.records import Record
from dimlint.sources.jsonfile import InputProblem
from dimlint.sources.safetensors import Header, length_problem, parse_header

PREFIX = "hf://"
INSTALL_HINT = "pip install 'dimlint[hub]'"
#: The small files fetched beside ``config.json`` when the repository has them.
SMALL_FILES = ("tokenizer_config.json", "added_tokens.json")
#: Seconds to wait for the Hub before calling it a network failure.
TIMEOUT = 30.0
#: Larger small files are not fetched (the largest real tokenizer_config.json are ~1 MB).
MAX_SMALL_FILE_BYTES = 32 * 2**20
#: Larger indexes are not fetched (DeepSeek-V3's, with 91k tensors, is 9 MB).
MAX_INDEX_BYTES = 256 * 2**20
#: Shard headers fetched at once.
PARALLEL_FETCHES = 8

_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9_])?"
_REPO = re.compile(rf"(?:{_NAME}/)?{_NAME}")
_BARE_REPO = re.compile(rf"{_NAME}/{_NAME}")
_REVISION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,254}")
_COMMIT = re.compile(r"[0-9a-f]{40}")


class HubError(UsageError):
    """A Hub model that cannot be read: one line naming it and what to do (exit code 2)."""


class HubId(Record):
    """A model on the Hub: ``org/name`` and an optional revision (branch, tag or commit)."""

    repo: str
    revision: str | None = None
    #: Spelled without ``hf://`` (so the user may have meant a local path).
    bare: bool = False

    def __str__(self) -> str:
        return f"{PREFIX}{self.repo}" + (f"@{self.revision}" if self.revision else "")


def parse_hub_id(text: str) -> HubId | None:
    """The Hub id ``text`` spells, or None when it names a local path (or nothing Hub-like).

    ``hf://…`` that is not a valid id raises :class:`HubError`: the user meant the Hub.
    """
    if text.startswith(PREFIX):
        found = _split(text[len(PREFIX) :], _REPO)
        if found is None:
            raise HubError(
                f"{text}: not a Hub model id; write hf://org/name or hf://org/name@revision"
            )
        return found
    if os.path.lexists(text) or looks_like_a_file(text):
        return None
    found = _split(text, _BARE_REPO)
    return found._replace(bare=True) if found is not None else None


#: Endings of the files ``check`` reads (and of weights): never a Hub model's name.
FILE_ENDINGS = (".json", ".py", ".safetensors", ".yaml", ".yml", ".toml", ".sh", ".cfg", ".txt")


def looks_like_a_file(text: str) -> bool:
    """A spelling that names a local file, missing or not, rather than a bare ``org/name``:
    a file ending (``configs/train.yaml``), a path that starts with ``.`` (``./``, ``../``),
    ``~`` or the root, more than one separator, or a Windows separator. Such a path is never
    sent to the Hub (a typo stays "no such file", and no file name leaks to a server)."""
    name = text.partition("@")[0]
    return (
        name.lower().endswith(FILE_ENDINGS)
        or name.startswith(("/", "~", "."))
        or name.count("/") > 1
        or "\\" in name
    )


def _split(text: str, repo_pattern: re.Pattern[str]) -> HubId | None:
    repo, at, revision = text.partition("@")
    if not repo_pattern.fullmatch(repo) or ".." in repo:
        return None
    if at and (not _REVISION.fullmatch(revision) or ".." in revision):
        return None
    return HubId(repo, revision or None)


class HubSnapshot(Record):
    """One revision of a Hub model as far as dimlint reads it.

    It is also the :class:`dimlint.sources.folder.Beside` of its ``config.json``: small files
    come from the cache folder, shard headers from :attr:`headers` (or from cached shards).
    """

    hub_id: HubId
    #: The commit the revision resolved to.
    sha: str
    #: The snapshot folder in the HF cache that holds the files fetched.
    folder: str
    #: The files at the top of the repository (offline: those in the cached snapshot).
    names: tuple[str, ...]
    #: Headers fetched by range request, by shard name.
    headers: Mapping[str, Header | InputProblem]
    #: Bytes transferred for the headers (the small files go through the cache).
    header_bytes: int

    @property
    def root(self) -> str:
        """``hf://org/name@sha``: the folder findings name."""
        return f"{PREFIX}{self.hub_id.repo}@{self.sha}"

    def display(self, name: str) -> str:
        return f"{self.root}/{name}"

    def local(self, name: str) -> str | None:
        if name not in self.names:
            return None
        path = os.path.join(self.folder, name)
        return path if os.path.isfile(path) else None

    def header(self, name: str) -> Header | InputProblem | None:
        if name in self.headers:
            return self.headers[name]
        path = self.local(name)  # a shard that is in the cache
        if path is None:
            return None
        from dimlint.sources.safetensors import read_header

        found = read_header(path)
        return found._replace(path=self.display(name)) if isinstance(found, Header) else found

    def config_bytes(self) -> bytes:
        """The bytes of ``config.json`` (fetched into the cache by :func:`fetch`)."""
        path = os.path.join(self.folder, "config.json")
        try:
            size = os.path.getsize(path)
            if size > MAX_SMALL_FILE_BYTES:
                raise HubError(
                    f"{self.display('config.json')}: the file is {size / 2**20:.0f} MiB;"
                    " model configs are a few KB"
                )
            with open(path, "rb") as handle:
                return handle.read()
        except OSError as error:
            raise HubError(
                f"{self.display('config.json')}: cannot read the cached file: {error.strerror}"
            ) from None


class Client:
    """The parts of ``huggingface_hub`` dimlint uses, each taken from the submodule that
    defines it.

    The package's top level is lazy (a module ``__getattr__``) and knows its submodules only
    once something has imported them: ``huggingface_hub.constants`` raised ``AttributeError``
    in a fresh process where transformers had not imported it first. So every submodule is
    imported here by name, and nothing is read as an attribute of the package itself.
    """

    def __init__(self, modules: Mapping[str, ModuleType]) -> None:
        self.constants: Any = modules["constants"]
        self.utils: Any = modules["utils"]
        self.errors: Any = modules["errors"]
        self.hf_hub_download: Any = modules["file_download"].hf_hub_download
        self.hf_hub_url: Any = modules["file_download"].hf_hub_url
        self.HfApi: Any = modules["hf_api"].HfApi

    def error_class(self, name: str) -> Any:
        """The exception class ``name`` (``huggingface_hub.errors``, else ``.utils`` where an
        older release defines it), or ``()``, which ``isinstance`` never matches."""
        for module in (self.errors, self.utils):
            found = getattr(module, name, None)
            if isinstance(found, type):
                return found
        return ()


#: The submodules :class:`Client` reads.
SUBMODULES = ("constants", "errors", "utils", "file_download", "hf_api")


def _huggingface_hub(source: str) -> Client:
    import importlib

    try:
        importlib.import_module("huggingface_hub")
    except ImportError:
        raise HubError(
            f"{source}: reading a model from the Hub needs huggingface_hub: {INSTALL_HINT}"
        ) from None
    try:
        modules = {name: importlib.import_module(f"huggingface_hub.{name}") for name in SUBMODULES}
        return Client(modules)
    except Exception as error:  # a release too old, or broken: still one line
        raise HubError(
            f"{source}: huggingface_hub cannot be used ({type(error).__name__}:"
            f" {_first_line(error)}): {INSTALL_HINT} installs a version that works"
        ) from None


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().upper() in {"1", "ON", "YES", "TRUE"}


def _settings(hub: Client) -> tuple[str, str | None, bool]:
    """Endpoint, cache folder and offline mode, from the environment as it is now."""
    constants = hub.constants
    endpoint = (os.environ.get("HF_ENDPOINT") or constants.ENDPOINT).rstrip("/")
    cache = os.environ.get("HF_HUB_CACHE")
    if not cache and os.environ.get("HF_HOME"):
        cache = os.path.join(os.environ["HF_HOME"], "hub")
    offline = _flag("HF_HUB_OFFLINE") or bool(constants.HF_HUB_OFFLINE)
    return endpoint, cache or None, offline


def fetch(hub_id: HubId, *, weights: bool = False) -> HubSnapshot:
    """Fetch what dimlint reads of ``hub_id`` (with ``weights``, also the shard headers the
    checkpoint checks read); every failure is one :class:`HubError`."""
    hub = _huggingface_hub(str(hub_id))
    endpoint, cache, offline = _settings(hub)
    try:
        if offline:
            return _from_cache(hub, hub_id, cache)
        return _from_hub(hub, hub_id, endpoint, cache, weights)
    except HubError:
        raise
    except Exception as error:
        raise explain(hub, hub_id, error, endpoint=endpoint, offline=offline) from None


def _from_cache(hub: Client, hub_id: HubId, cache: str | None) -> HubSnapshot:
    path = _download(hub, hub_id, "config.json", hub_id.revision, cache, local_only=True)
    folder = os.path.dirname(path)
    names = tuple(sorted(entry for entry in os.listdir(folder) if entry != "config.json"))
    return HubSnapshot(hub_id, os.path.basename(folder), folder, ("config.json", *names), {}, 0)


def _from_hub(
    hub: Client, hub_id: HubId, endpoint: str, cache: str | None, weights: bool
) -> HubSnapshot:
    api = hub.HfApi(endpoint=endpoint)
    info = api.model_info(
        hub_id.repo, revision=hub_id.revision, files_metadata=True, timeout=TIMEOUT
    )
    sizes = {str(s.rfilename): s.size for s in info.siblings or () if "/" not in str(s.rfilename)}
    names = tuple(sorted(sizes))
    config_size = sizes.get("config.json")
    if isinstance(config_size, int) and config_size > MAX_SMALL_FILE_BYTES:
        raise HubError(
            f"{hub_id}: config.json is {config_size / 2**20:.0f} MiB; model configs are a few KB"
        )
    # config.json by the revision asked: huggingface_hub records which commit that revision
    # is in the cache (refs/), which is what an offline run resolves it with later.
    path = _download(hub, hub_id, "config.json", hub_id.revision, cache, endpoint=endpoint)
    folder = os.path.dirname(path)
    sha = os.path.basename(folder)
    if not _COMMIT.fullmatch(sha):
        raise HubError(f"{hub_id}: the Hub answered with no commit sha for this revision")
    for name in names:
        size = sizes[name]
        limit = MAX_INDEX_BYTES if name.endswith(".index.json") else MAX_SMALL_FILE_BYTES
        if isinstance(size, int) and size > limit:
            continue  # not what this file ever is: left out, as if absent
        if name in SMALL_FILES or (weights and name.endswith(".safetensors.index.json")):
            _download(hub, hub_id, name, sha, cache, endpoint=endpoint)
    snapshot = HubSnapshot(hub_id, sha, folder, names, {}, 0)
    if not weights:
        return snapshot
    shards = [name for name in _shards(snapshot) if snapshot.local(name) is None]
    headers: dict[str, Header | InputProblem] = {}
    transferred = 0
    if shards:
        from concurrent.futures import ThreadPoolExecutor

        headers_for = _HeaderReader(hub, snapshot, endpoint)
        with ThreadPoolExecutor(max_workers=min(PARALLEL_FETCHES, len(shards))) as pool:
            for name, (found, count) in zip(shards, pool.map(headers_for, shards), strict=True):
                headers[name] = found
                transferred += count
    return snapshot._replace(headers=headers, header_bytes=transferred)


def _download(
    hub: Client,
    hub_id: HubId,
    name: str,
    revision: str | None,
    cache: str | None,
    *,
    endpoint: str | None = None,
    local_only: bool = False,
) -> str:
    try:
        with _Quiet(hub):
            return str(
                hub.hf_hub_download(
                    hub_id.repo,
                    name,
                    revision=revision,
                    cache_dir=cache,
                    endpoint=endpoint,
                    local_files_only=local_only,
                    etag_timeout=TIMEOUT,
                )
            )
    except Exception as error:
        raise explain(hub, hub_id, error, name=name, offline=local_only) from None


class _Quiet:
    """No progress bars while fetching: the CLI's output is its findings, the API prints
    nothing (a bar that was already off stays off)."""

    def __init__(self, hub: Client) -> None:
        self.utils = hub.utils
        self.was_off = True

    def __enter__(self) -> None:
        self.was_off = bool(self.utils.are_progress_bars_disabled())
        if not self.was_off:
            self.utils.disable_progress_bars()

    def __exit__(self, *exc: object) -> None:
        if not self.was_off:
            self.utils.enable_progress_bars()


def _shards(snapshot: HubSnapshot) -> list[str]:
    """The safetensors files of the transformers layout: the index's shards, else the single
    ``model*.safetensors`` files (the same choice as :mod:`dimlint.sources.checkpoint`)."""
    import json

    from dimlint.sources.filenames import is_weight_file

    indexes = sorted(n for n in snapshot.names if n.endswith(".safetensors.index.json"))
    indexes = [n for n in indexes if is_weight_file(n)]
    if indexes:
        chosen = (
            "model.safetensors.index.json"
            if "model.safetensors.index.json" in indexes
            else indexes[0]
        )
        path = snapshot.local(chosen)
        try:
            with open(path or "", "rb") as handle:
                weight_map = json.loads(handle.read()).get("weight_map")
        except (OSError, ValueError, AttributeError):
            return []  # an unreadable index is reported (DL001) by the checkpoint reader
        if not isinstance(weight_map, dict):
            return []
        shards = {s for s in weight_map.values() if isinstance(s, str)}
        return sorted(s for s in shards if s in snapshot.names)
    return [n for n in snapshot.names if is_weight_file(n) and n.endswith(".safetensors")]


class _HeaderReader:
    """Fetch one shard's header by range requests: ``(header or problem, bytes transferred)``."""

    def __init__(self, hub: Client, snapshot: HubSnapshot, endpoint: str) -> None:
        self.hub = hub
        self.snapshot = snapshot
        self.endpoint = endpoint
        self.session = hub.utils.get_session()
        self.headers = dict(hub.utils.build_hf_headers())

    def __call__(self, name: str) -> tuple[Header | InputProblem, int]:
        display = self.snapshot.display(name)
        try:
            return self._read(name, display)
        except HubError:
            raise
        except Exception as error:
            raise explain(self.hub, self.snapshot.hub_id, error, name=name) from None

    def _read(self, name: str, display: str) -> tuple[Header | InputProblem, int]:
        url = self.hub.hf_hub_url(
            self.snapshot.hub_id.repo, name, revision=self.snapshot.sha, endpoint=self.endpoint
        )
        prefix, size = self._range(url, 0, 8)
        if size is None:
            return _problem(name, "the server did not say the file's size (Content-Range)"), 8
        if len(prefix) < 8:
            return (
                _problem(name, f"the file has {size} bytes, fewer than a safetensors header"),
                len(prefix),
            )
        length = int.from_bytes(prefix, "little")
        problem = length_problem(display, length, size)
        if problem is not None:
            return problem, len(prefix)
        raw, _ = self._range(url, 8, 8 + length)
        if len(raw) < length:
            return _problem(name, f"the header is truncated ({len(raw)} of {length} bytes)"), 8
        return parse_header(display, raw, size), len(prefix) + len(raw)

    def _range(self, url: str, start: int, end: int) -> tuple[bytes, int | None]:
        """Bytes ``[start, end)`` of the file at ``url`` and the file's size, never reading
        more than ``end`` bytes even from a server that ignores ``Range``."""
        headers = {**self.headers, "Range": f"bytes={start}-{end - 1}"}
        headers["Accept-Encoding"] = "identity"
        with _get(self.session, url, headers) as (response, chunks):
            if response.status_code >= 400:
                _read_small(chunks)  # huggingface_hub reads the error body for its message
                self.hub.utils.hf_raise_for_status(response)
            if response.status_code == 206:
                data = _read_at_most(chunks, end - start)
                return data, _total_size(response.headers.get("Content-Range"))
            whole = _read_at_most(chunks, end)  # 200: the server sent the file from byte 0
            length = response.headers.get("Content-Length")
            return whole[start:end], int(length) if length and length.isdigit() else None


class _Streamed:
    """A streamed GET through either HTTP client ``huggingface_hub`` has used (httpx ≥ 1.0,
    requests before): yields ``(response, iterator over body chunks)`` and closes it."""

    def __init__(self, session: Any, url: str, headers: dict[str, str]) -> None:
        self.session, self.url, self.headers = session, url, headers
        self.context: Any = None
        self.response: Any = None

    def __enter__(self) -> tuple[Any, Iterator[bytes]]:
        if hasattr(self.session, "stream"):  # httpx
            self.context = self.session.stream(
                "GET", self.url, headers=self.headers, timeout=TIMEOUT, follow_redirects=True
            )
            self.response = self.context.__enter__()
            return self.response, self.response.iter_bytes()
        self.response = self.session.get(  # requests
            self.url, headers=self.headers, timeout=TIMEOUT, stream=True
        )
        return self.response, self.response.iter_content(chunk_size=65536)

    def __exit__(self, *exc: object) -> None:
        if self.context is not None:
            self.context.__exit__(*exc)
        elif self.response is not None:
            self.response.close()


def _get(session: Any, url: str, headers: dict[str, str]) -> _Streamed:
    return _Streamed(session, url, headers)


def _read_at_most(chunks: Iterator[bytes], limit: int) -> bytes:
    data = bytearray()
    for chunk in chunks:
        data += chunk
        if len(data) >= limit:
            break
    return bytes(data[:limit])


def _read_small(chunks: Iterator[bytes]) -> None:
    for _ in zip(range(16), chunks, strict=False):
        pass


def _total_size(content_range: str | None) -> int | None:
    """``bytes 0-7/123456`` → 123456."""
    if not content_range or "/" not in content_range:
        return None
    total = content_range.rsplit("/", 1)[1].strip()
    return int(total) if total.isdigit() else None


def _problem(name: str, message: str) -> InputProblem:
    return InputProblem(f"{name}: {message}")


def explain(
    hub: Client,
    hub_id: HubId,
    error: BaseException,
    *,
    name: str | None = None,
    endpoint: str | None = None,
    offline: bool = False,
) -> HubError:
    """One line for a failure of ``huggingface_hub`` (or of the network beneath it)."""
    where = f"{hub_id}" + (f": {name}" if name else "")
    if isinstance(error, hub.error_class("GatedRepoError")):
        return HubError(
            f"{hub_id}: the repository is gated: accept its conditions on its Hub page, then"
            " log in (hf auth login) or set HF_TOKEN"
        )
    unreachable = (
        hub.error_class("LocalEntryNotFoundError"),
        hub.error_class("OfflineModeIsEnabled"),
    )
    if offline or isinstance(error, unreachable):
        if offline:
            return HubError(
                f"{where}: not in the local HF cache and HF_HUB_OFFLINE is set: run once online"
                " or unset HF_HUB_OFFLINE"
            )
        return HubError(f"{where}: cannot reach the Hub ({_first_line(error)})")
    if isinstance(error, hub.error_class("RevisionNotFoundError")):
        return HubError(f"{hub_id}: no revision {hub_id.revision!r} in the repository")
    if isinstance(error, hub.error_class("EntryNotFoundError")):
        return HubError(f"{where}: no such file in the repository")
    if isinstance(error, hub.error_class("RepositoryNotFoundError")):
        local = f"; no local path {hub_id.repo} exists either" if hub_id.bare else ""
        return HubError(
            f"{hub_id}: no such model repository, or it is private: check the name, or set"
            f" HF_TOKEN to a token that can read it{local}"
        )
    if isinstance(error, hub.error_class("HfHubHTTPError")):
        return HubError(f"{where}: the Hub refused the request: {_first_line(error)}")
    target = endpoint or "the Hub"
    return HubError(
        f"{where}: network error talking to {target}: {type(error).__name__}: {_first_line(error)}"
    )


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
