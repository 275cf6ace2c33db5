"""A file with a syntax error, as it is while being typed: the parser
recovers (a string left open ends at its line, a stray line is skipped, a
missing `}` closes at the end of the file), so diagnostics of the other
files stay current, and completion, hover, go-to-definition and the live
preview's hints work in the parts of the broken file that parse and in
the other files."""

import pytest
from lsprotocol import types

from conftest import change_file, codes, diagnostics_for, open_file, uri
from test_preview import hints


def doc(path):
    return types.TextDocumentIdentifier(uri=uri(path))


def pos_in(text: str, needle: str, nth: int = 0, delta: int = 0) -> types.Position:
    """The LSP position of the `nth` occurrence of `needle` in `text`, plus
    `delta` characters (ASCII text: columns are characters)."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    at += delta
    line = text.count("\n", 0, at)
    return types.Position(line=line, character=at - (text.rfind("\n", 0, at) + 1))


def replacing(text: str, old: str, new: str):
    """The incremental edit that replaces the first `old` of `text` by
    `new`, and the text after it."""
    assert text.count(old) >= 1, old
    start = pos_in(text, old)
    end = pos_in(text, old, delta=len(old))
    return ((start.line, start.character), (end.line, end.character), new), text.replace(old, new, 1)


# Syntax errors typed into the body of storage/main.hcl's `resources`
# block (lines 11-15), between the locals and `for_each` above and
# `region = region` below: (old text, new text, HCL's summary of the
# error).
BREAKS = {
    "unterminated-string": (
        '"s3.aws.upbound.io/v1beta1"',
        '"s3.aws.upbound.io/v1beta1',
        "Invalid multi-line string",
    ),
    "missing-equals": ('kind       = "Bucket"', 'kind       "Bucket"', "Missing key/value separator"),
    "dangling-dot": (
        "name = each.value\n",
        "name = each.value\n        x = param.\n",
        "Invalid attribute name",
    ),
    # The `}` closing `metadata = {`: everything after it nests one level
    # deeper and the `resources` block is left open.
    "missing-brace": ("      }\n      spec", "\n      spec", "Unclosed configuration block"),
}


async def open_broken(client, ws, kind, version=2, extra=""):
    """Opens storage's main.hcl (with `extra` appended) and breaks it by an
    edit; returns its text and the error's summary."""
    main = ws / "main.hcl"
    text = main.read_text() + extra
    open_file(client, main, text)
    old, new, summary = BREAKS[kind]
    edit, text = replacing(text, old, new)
    change_file(client, main, version, [edit])
    return text, summary


def syntax_errors(ds, summary):
    return [d for d in ds if d.code == "E0001" and summary in d.message]


@pytest.mark.parametrize("kind", list(BREAKS))
async def test_other_files_diagnostics_stay_current_while_one_is_broken(client, workspace, kind):
    ws = workspace("storage")
    main, status = ws / "main.hcl", ws / "status.hcl"
    status_text = status.read_text()
    open_file(client, status)
    await diagnostics_for(client, status, lambda ds: ds == [])
    main_text, summary = await open_broken(client, ws, kind)
    # The broken file's syntax error, with HCL's wording, and only it.
    ds = await diagnostics_for(client, main, lambda ds: syntax_errors(ds, summary))
    assert codes(ds) == ["E0001"], ds
    assert ds[0].severity == types.DiagnosticSeverity.Error
    # An unknown name typed in the other file is reported there...
    edit, _ = replacing(status_text, "length(names)", "length(nmaes)")
    change_file(client, status, 2, [edit])
    ds = await diagnostics_for(client, status, lambda ds: ds != [])
    assert codes(ds) == ["E0301"]
    assert 'did you mean "names"?' in ds[0].message
    assert ds[0].range.start == pos_in(status_text, "names")
    # ... and cleared when fixed; the first file is still broken.
    change_file(client, status, 3, status_text)
    assert await diagnostics_for(client, status, lambda ds: ds == []) == []
    assert codes(await diagnostics_for(client, main)) == ["E0001"]
    # A name the other file uses, defined in the broken file's locals:
    # renaming it there breaks the use here.
    edit, _ = replacing(main_text, "  names  =", "  nombres =")
    change_file(client, main, 3, [edit])
    ds = await diagnostics_for(client, status, lambda ds: ds != [])
    assert codes(ds) == ["E0301"]


async def complete_at(client, path, pos):
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=doc(path), position=pos)
    )
    items = result.items if isinstance(result, types.CompletionList) else (result or [])
    return {i.label for i in items}


async def hover_at(client, path, pos):
    h = await client.text_document_hover_async(types.HoverParams(text_document=doc(path), position=pos))
    return h.contents.value if h else None


async def definition_at(client, path, pos):
    result = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc(path), position=pos)
    )
    if result is None:
        return []
    return [(loc.uri, loc.range.start) for loc in (result if isinstance(result, list) else [result])]


# Appended to main.hcl: a block after the error, whatever the error is.
LATER = "\nlocals {\n  shout = upper(region)\n}\n"


@pytest.mark.parametrize("kind", list(BREAKS))
async def test_completion_hover_and_definition_around_the_error(client, workspace, kind):
    ws = workspace("storage")
    main, status = ws / "main.hcl", ws / "status.hcl"
    text, summary = await open_broken(client, ws, kind, extra=LATER)
    await diagnostics_for(client, main, lambda ds: syntax_errors(ds, summary))
    names_def = (uri(main), pos_in(text, "names  ="))
    region_def = (uri(main), pos_in(text, "region ="))

    # Before the error: the XRD's fields after `req.composite.spec.`, the
    # local used by `for_each`.
    assert {"region", "buckets"} <= await complete_at(client, main, pos_in(text, "spec.region", delta=5))
    at = pos_in(text, "toset(names)", delta=7)
    assert "**local** `names`" in await hover_at(client, main, at)
    assert await definition_at(client, main, at) == [names_def]

    # In the same object, after the broken item: the parser reads on from
    # the next line (HCL skips to the object's `}`).
    at = pos_in(text, "region = region", delta=10)
    assert await definition_at(client, main, at) == [region_def]

    # After it: `each.` in the template, a local used in the next block.
    assert await complete_at(client, main, pos_in(text, "each.value", delta=5)) == {"key", "value"}
    at = pos_in(text, "upper(region)", delta=8)
    assert "**local** `region`" in await hover_at(client, main, at)
    assert await definition_at(client, main, at) == [region_def]
    assert {"region", "names", "shout", "upper"} <= await complete_at(client, main, at)

    # In the other file: names defined in the broken one.
    open_file(client, status)
    status_text = status.read_text()
    at = pos_in(status_text, "length(names)", delta=8)
    assert "**local** `names`" in await hover_at(client, status, at)
    assert await definition_at(client, status, at) == [names_def]
    assert {"names", "region", "length"} <= await complete_at(client, status, at)


async def test_a_dangling_dot_in_a_module_file(client, workspace):
    """`x = param.` being typed in an imported module's file: the module's
    parameters are offered there, names before and after it resolve, and
    the root program's diagnostics stay current."""
    ws = workspace("modules")
    main, mod = ws / "main.hcl", ws / "modules" / "bucket" / "main.hcl"
    open_file(client, main)
    await diagnostics_for(client, main, lambda ds: ds == [])
    text = mod.read_text()
    open_file(client, mod, text)
    edit, text = replacing(text, "resource bucket {\n", "resource bucket {\n  locals {\n    x = param.\n  }\n")
    change_file(client, mod, 2, [edit])
    ds = await diagnostics_for(client, mod, lambda ds: ds != [])
    assert codes(ds) == ["E0001"]
    assert "Invalid attribute name" in ds[0].message
    assert "An attribute name is required after a dot." in ds[0].message

    assert await complete_at(client, mod, pos_in(text, "x = param.", delta=10)) == {"region"}
    # Before the error (the parameter's own block) and after it.
    assert "where the bucket lives" in await hover_at(client, mod, pos_in(text, "param.region", delta=8))
    [(u, start)] = await definition_at(client, mod, pos_in(text, "param.region", delta=8))
    assert (u, start) == (uri(mod), pos_in(text, 'region" {'))
    [(u, start)] = await definition_at(client, mod, pos_in(text, "bucket.status", delta=1))
    assert (u, start) == (uri(mod), pos_in(text, "bucket {"))

    # The root program: an unknown name is reported and cleared, and
    # navigation into the module works.
    main_text = main.read_text()
    edit, _ = replacing(main_text, "module.logs.arn", "module.lgos.arn")
    change_file(client, main, 2, [edit])
    ds = await diagnostics_for(client, main, lambda ds: ds != [])
    assert codes(ds) == ["E0703"], ds
    assert 'unknown module instance "lgos"' in ds[0].message
    change_file(client, main, 3, main_text)
    await diagnostics_for(client, main, lambda ds: ds == [])
    [(u, start)] = await definition_at(client, main, pos_in(main_text, "logs.arn", delta=1))
    assert (u, start) == (uri(main), pos_in(main_text, 'logs" {'))
    assert codes(await diagnostics_for(client, mod)) == ["E0001"]


def labels_of(text, hs):
    lines = text.splitlines()
    return [(lines[h.position.line][: h.position.character].strip(), h.label) for h in hs]


@pytest.mark.parametrize("kind", list(BREAKS))
async def test_preview_hints_for_the_parts_that_parse(client, workspace, kind):
    ws = workspace("storage")
    main, status = ws / "main.hcl", ws / "status.hcl"
    status_text = status.read_text() + "\nlocals {\n  count = length(names)\n}\n"
    open_file(client, status, status_text)
    text, summary = await open_broken(client, ws, kind, extra=LATER)
    await diagnostics_for(client, main, lambda ds: syntax_errors(ds, summary))
    got = labels_of(text, await hints(client, main))
    # The locals before the error...
    assert ("region = req.composite.spec.region", '→ "eu-west-1"') in got
    assert ("names  = req.composite.spec.buckets", '→ ["logs", "data"]') in got
    # ... and after it. (A `}` left out nests the block after it in the
    # `resources` block left open, where a local is evaluated when used.)
    if kind != "missing-brace":
        assert ("shout = upper(region)", '→ "EU-WEST-1"') in got
    # The other file's.
    got = labels_of(status_text, await hints(client, status))
    assert ("count = length(names)", "→ 2") in got
