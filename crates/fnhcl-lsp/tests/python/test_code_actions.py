"""Quick fixes: the did-you-mean of a diagnostic as a code action whose
edit replaces the offending name."""

import pytest
from lsprotocol import types

from conftest import change_file, codes, diagnostics_for, open_file, uri


async def actions_for(client, path, diags):
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(path)),
            range=diags[0].range,
            context=types.CodeActionContext(diagnostics=diags),
        )
    )


def apply(text: str, edits) -> str:
    """Applies single-line edits (UTF-16 columns) to `text`."""
    lines = text.split("\n")
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        assert e.range.start.line == e.range.end.line
        u = lines[e.range.start.line].encode("utf-16-le")
        s, t = 2 * e.range.start.character, 2 * e.range.end.character
        lines[e.range.start.line] = (u[:s] + e.new_text.encode("utf-16-le") + u[t:]).decode("utf-16-le")
    return "\n".join(lines)


@pytest.mark.parametrize(
    "file,typo,fixed,code",
    [
        ("main.hcl", "region = region\n", "region = regoin\n", "E0301"),
        ("main.hcl", "toset(names)", "toste(names)", "E0401"),
        ("main.hcl", "each.value", "each.valeu", "E0303"),
        ("main.hcl", "req.composite.spec.region", "req.composit.spec.region", "E0304"),
        ("main.hcl", "spec.buckets", "spec.bucket", "W0603"),
        ("status.hcl", "length(names)", "lenght(names)", "E0401"),
    ],
)
async def test_fix_applies_the_suggestion_and_clears_the_diagnostic(client, workspace, file, typo, fixed, code):
    ws = workspace("storage")
    main = ws / file
    good = main.read_text()
    bad = good.replace(typo, fixed, 1)
    assert bad != good
    open_file(client, main, bad)
    ds = await diagnostics_for(client, main, lambda ds: code in codes(ds))
    d = next(d for d in ds if d.code == code)
    assert d.data is not None  # the fix travels with the diagnostic
    [action] = await actions_for(client, main, [d])
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.is_preferred
    edits = action.edit.changes[uri(main)]
    assert len(edits) == 1
    assert apply(bad, edits) == good
    change_file(client, main, 2, apply(bad, edits))
    await diagnostics_for(client, main, lambda ds: code not in codes(ds))


async def test_fix_of_an_unknown_body_field_from_the_crd(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    bad = main.read_text().replace("region = region", "regoin = region")
    open_file(client, main, bad)
    ds = await diagnostics_for(client, main, lambda ds: any("did you mean" in d.message for d in ds if d.code == "W0610"))
    d = next(d for d in ds if d.code == "W0610" and "did you mean" in d.message)
    [action] = await actions_for(client, main, [d])
    [edit] = action.edit.changes[uri(main)]
    assert edit.new_text == "region"
    assert apply(bad, [edit]) == main.read_text()


async def test_fix_without_data_is_recomputed(client, workspace):
    """A client that does not send `data` back still gets the fix."""
    ws = workspace("storage")
    main = ws / "main.hcl"
    bad = main.read_text().replace("region = region\n", "region = regoin\n")
    open_file(client, main, bad)
    ds = await diagnostics_for(client, main, lambda ds: "E0301" in codes(ds))
    d = next(d for d in ds if d.code == "E0301")
    d.data = None
    [action] = await actions_for(client, main, [d])
    [edit] = action.edit.changes[uri(main)]
    assert edit.new_text == "region"


async def test_no_action_without_a_suggestion(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    bad = main.read_text().replace("region = region\n", "region = zzzzzzzz\n")
    open_file(client, main, bad)
    ds = await diagnostics_for(client, main, lambda ds: "E0301" in codes(ds))
    d = next(d for d in ds if d.code == "E0301")
    assert "did you mean" not in d.message
    assert list(await actions_for(client, main, [d]) or []) == []
