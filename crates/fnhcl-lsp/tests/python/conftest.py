"""Shared set-up of the language-server tests: `fn-hcl lsp` started by
pytest-lsp's client, initialized with the capabilities of a real editor
(VS Code and Neovim, each test runs with both), on a copy of a fixture
workspace under tests/python/workspaces/."""

import os
import pathlib
import shutil
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

HERE = pathlib.Path(__file__).parent
BIN = os.environ.get("FN_HCL_BIN") or str(HERE.parents[3] / "target" / "debug" / "fn-hcl")

# The editors whose initialize capabilities the tests run with.
PROFILES = ["visual-studio-code", "neovim"]


@pytest.fixture
def workspace(tmp_path):
    """Returns a function that copies a fixture workspace into a temporary
    directory and returns its path (tests may write to it)."""

    def copy(name: str) -> pathlib.Path:
        dst = tmp_path / name
        shutil.copytree(HERE / "workspaces" / name, dst)
        return dst

    return copy


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[BIN, "lsp"]),
    params=PROFILES,
)
async def client(lsp_client: LanguageClient, request):
    # Real editors accept the server's dynamic registrations (watched files).
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams):
        lsp_client.registrations = getattr(lsp_client, "registrations", []) + list(params.registrations)
        return None

    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(request.param),
            process_id=os.getpid(),
        )
    )
    yield
    await lsp_client.shutdown_session()


def uri(path: pathlib.Path) -> str:
    return path.resolve().as_uri()


def open_file(client: LanguageClient, path: pathlib.Path, text: str | None = None, version: int = 1):
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri(path),
                language_id="hcl",
                version=version,
                text=path.read_text() if text is None else text,
            )
        )
    )


def change_file(client: LanguageClient, path: pathlib.Path, version: int, edits):
    """Incremental edits: a list of ((line, col), (line, col), text), or a
    single string for a full replacement."""
    if isinstance(edits, str):
        changes = [types.TextDocumentContentChangeWholeDocument(text=edits)]
    else:
        changes = [
            types.TextDocumentContentChangePartial(
                range=types.Range(
                    start=types.Position(line=a[0], character=a[1]),
                    end=types.Position(line=b[0], character=b[1]),
                ),
                text=t,
            )
            for (a, b, t) in edits
        ]
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri(path), version=version),
            content_changes=changes,
        )
    )


async def diagnostics_for(client: LanguageClient, path: pathlib.Path, predicate=lambda ds: True, timeout=10.0):
    """Waits until the diagnostics published for `path` satisfy `predicate`
    and returns them."""
    import asyncio

    key = uri(path)
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        ds = client.diagnostics.get(key)
        ds = None if ds is None else list(ds)
        if ds is not None and predicate(ds):
            return ds
        remaining = deadline - asyncio.get_running_loop().time()
        if remaining <= 0:
            raise AssertionError(f"no matching diagnostics for {key}; last: {ds}")
        try:
            await asyncio.wait_for(
                client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), remaining
            )
        except asyncio.TimeoutError:
            pass


def codes(ds):
    return sorted(d.code for d in ds)


def position_of(path: pathlib.Path, needle: str, nth: int = 0, delta: int = 0) -> types.Position:
    """The LSP position (UTF-16 columns) of the `nth` occurrence of `needle`
    in the file, plus `delta` characters."""
    text = path.read_text()
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    at += delta
    line = text.count("\n", 0, at)
    start = text.rfind("\n", 0, at) + 1
    col = len(text[start:at].encode("utf-16-le")) // 2
    return types.Position(line=line, character=col)


def text_at(path: pathlib.Path, r: types.Range) -> str:
    """The text of a range (UTF-16 columns) of a single line of a file."""
    assert r.start.line == r.end.line, r
    line = path.read_text().splitlines()[r.start.line].encode("utf-16-le")
    return line[2 * r.start.character : 2 * r.end.character].decode("utf-16-le")
