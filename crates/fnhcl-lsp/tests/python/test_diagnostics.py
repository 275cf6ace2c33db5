"""Diagnostics: what `fn-hcl analyze` reports, per file, kept in step with
edits in every file of the program; formatting; protocol hygiene."""

import subprocess

from lsprotocol import types

from conftest import BIN, change_file, codes, diagnostics_for, open_file, uri


async def test_clean_program_has_no_diagnostics(client, workspace):
    ws = workspace("storage")
    open_file(client, ws / "main.hcl")
    assert await diagnostics_for(client, ws / "main.hcl") == []
    # Files of the program that are not open are published too.
    assert await diagnostics_for(client, ws / "status.hcl") == []


async def test_errors_have_codes_and_ranges_and_clear_when_fixed(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    open_file(client, main)
    await diagnostics_for(client, main, lambda ds: ds == [])
    # `region = region` → `region = regoin` on line 17 (0-based 17).
    line = main.read_text().splitlines()[17]
    col = line.index("= region") + 2
    change_file(client, main, 2, [((17, col), (17, col + 6), "regoin")])
    ds = await diagnostics_for(client, main, lambda ds: len(ds) > 0)
    # The unknown name, and the local that is now unused.
    assert codes(ds) == ["E0301", "W0601"]
    d = next(d for d in ds if d.code == "E0301")
    assert d.severity == types.DiagnosticSeverity.Error
    assert d.source == "fn-hcl"
    assert d.range.start == types.Position(line=17, character=col)
    assert d.range.end == types.Position(line=17, character=col + 6)
    assert 'did you mean "region"?' in d.message
    change_file(client, main, 3, [((17, col), (17, col + 6), "region")])
    assert await diagnostics_for(client, main, lambda ds: ds == []) == []


async def test_fixing_one_file_clears_what_it_caused_in_another(client, workspace):
    ws = workspace("storage")
    main, status = ws / "main.hcl", ws / "status.hcl"
    open_file(client, main)
    open_file(client, status)
    await diagnostics_for(client, status, lambda ds: ds == [])
    # Renaming the local in main.hcl breaks its use in status.hcl.
    text = main.read_text().replace("  names  = req", "  nombres = req")
    change_file(client, main, 2, text)
    ds = await diagnostics_for(client, status, lambda ds: len(ds) > 0)
    assert "E0301" in codes(ds)
    change_file(client, main, 3, main.read_text())
    assert await diagnostics_for(client, status, lambda ds: ds == []) == []
    assert await diagnostics_for(client, main, lambda ds: ds == []) == []


async def test_parse_error_then_recovery(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    open_file(client, main)
    await diagnostics_for(client, main, lambda ds: ds == [])
    change_file(client, main, 2, main.read_text() + "\nresource broken {\n")
    ds = await diagnostics_for(client, main, lambda ds: len(ds) > 0)
    assert any(d.severity == types.DiagnosticSeverity.Error for d in ds)
    assert any("Unclosed configuration block" in d.message for d in ds)
    change_file(client, main, 3, main.read_text())
    await diagnostics_for(client, main, lambda ds: ds == [])


async def test_crd_schema_findings(client, workspace):
    """The `.crds/` directory is found walking up and loaded in the
    background; body fields are then checked against the Bucket CRD."""
    ws = workspace("storage")
    main = ws / "main.hcl"
    text = main.read_text().replace("region = region", "regoin = region")
    open_file(client, main, text)
    ds = await diagnostics_for(client, main, lambda ds: "W0610" in codes(ds))
    messages = [d.message for d in ds if d.code == "W0610"]
    assert any('unknown field; did you mean "region"?' in m for m in messages), messages
    assert any("required field is missing" in m for m in messages), messages
    assert all(d.severity == types.DiagnosticSeverity.Warning for d in ds)


async def test_xrd_paths_are_checked(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    text = main.read_text().replace("spec.region", "spec.regoin")
    open_file(client, main, text)
    ds = await diagnostics_for(client, main, lambda ds: len(ds) > 0)
    assert "W0603" in codes(ds), ds


async def test_closing_clears_diagnostics(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    open_file(client, main, main.read_text().replace("region = region", "region = nope"))
    await diagnostics_for(client, main, lambda ds: len(ds) > 0)
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri(main)))
    )
    await diagnostics_for(client, main, lambda ds: ds == [])


async def test_formatting(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    open_file(client, main, 'locals {\n  a = 1\n  bb = 2\n}\n')
    edits = await client.text_document_formatting_async(
        types.DocumentFormattingParams(
            text_document=types.TextDocumentIdentifier(uri=uri(main)),
            options=types.FormattingOptions(tab_size=2, insert_spaces=True),
        )
    )
    assert len(edits) == 1
    assert edits[0].new_text == "locals {\n  a  = 1\n  bb = 2\n}\n"


def test_upstream_command_line(tmp_path):
    """Invoked as `function-hcl-ls`, the binary takes upstream's CLI."""
    link = tmp_path / "function-hcl-ls"
    link.symlink_to(BIN)
    out = subprocess.run([str(link), "version", "--json"], capture_output=True, text=True, check=True)
    assert '"version"' in out.stdout
    init = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}'
    msgs = [
        init,
        b'{"jsonrpc":"2.0","method":"initialized","params":{}}',
        b'{"jsonrpc":"2.0","id":2,"method":"shutdown"}',
        b'{"jsonrpc":"2.0","method":"exit"}',
    ]
    stdin = b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(m), m) for m in msgs)
    out = subprocess.run([str(link), "serve", "--stdio"], input=stdin, capture_output=True, check=True, timeout=20)
    assert b'"capabilities"' in out.stdout
    assert b'"id":2' in out.stdout


async def test_programs_under_one_crd_source_share_one_load(client, workspace):
    """Two composition directories under one `.crds/` load it once, and
    both are checked against it."""
    import asyncio
    import shutil

    ws = workspace("storage")
    parent = ws.parent / "platform"
    parent.mkdir()
    shutil.move(str(ws / ".crds"), str(parent / ".crds"))
    a = parent / "a"
    shutil.copytree(ws, a)
    shutil.copytree(ws, parent / "b")
    b = parent / "b"
    for d in (a, b):
        main = d / "main.hcl"
        main.write_text(main.read_text().replace("region = region", "regoin = region"))
        open_file(client, main)
    for d in (a, b):
        ds = await diagnostics_for(client, d / "main.hcl", lambda ds: "W0610" in codes(ds))
        assert any('did you mean "region"?' in x.message for x in ds)
    await asyncio.sleep(0.2)
    loads = [m.message for m in client.log_messages if "kinds loaded" in m.message]
    assert len(loads) == 1, loads
    assert loads[0].endswith(str((parent / ".crds").resolve()))
