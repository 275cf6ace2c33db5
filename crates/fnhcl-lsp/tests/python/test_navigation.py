"""Go to definition and declaration, find references and rename, across the
files of a program."""

import pytest
from lsprotocol import types

from conftest import diagnostics_for, open_file, position_of, text_at, uri


def doc(path):
    return types.TextDocumentIdentifier(uri=uri(path))


async def definition(client, path, pos):
    return await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc(path), position=pos)
    )


def as_list(result):
    if result is None:
        return []
    return result if isinstance(result, list) else [result]


async def test_definition_of_a_local_used_in_another_file(client, workspace):
    ws = workspace("nav")
    status = ws / "functions.hcl"
    open_file(client, status)
    [loc] = as_list(await definition(client, status, position_of(status, "zones)")))
    assert loc.uri == uri(ws / "main.hcl")
    assert text_at(ws / "main.hcl", loc.range) == "zones"
    assert loc.range.start == position_of(ws / "main.hcl", "zones  =")


async def test_definition_after_multibyte_text_uses_utf16_columns(client, workspace):
    ws = workspace("nav")
    main = ws / "main.hcl"
    open_file(client, main)
    # `region` inside "é😀-${region}": the emoji is two UTF-16 units.
    pos = position_of(main, "region}", delta=2)
    [loc] = as_list(await definition(client, main, pos))
    assert loc.range.start == position_of(main, "region = \"eu")
    assert text_at(main, loc.range) == "region"


@pytest.mark.parametrize(
    "needle,delta,target,target_text",
    [
        ("each.key", 1, "for_each", "for_each"),
        ("self.basename", 1, "template {", "template"),
        ("bucket.status", 1, "bucket {", "bucket"),
        ("label\n", 1, "label =", "label"),
    ],
)
async def test_definition_of_each_self_and_req_resource(client, workspace, needle, delta, target, target_text):
    ws = workspace("nav")
    main = ws / "main.hcl"
    open_file(client, main)
    [loc] = as_list(await definition(client, main, position_of(main, needle, delta=delta)))
    assert loc.uri == uri(main)
    assert loc.range.start == position_of(main, target)
    assert text_at(main, loc.range) == target_text


async def test_declaration_of_invoked_function_and_its_arg(client, workspace):
    ws = workspace("nav")
    main, funcs = ws / "main.hcl", ws / "functions.hcl"
    open_file(client, main)
    result = await client.text_document_declaration_async(
        types.DeclarationParams(text_document=doc(main), position=position_of(main, "zone_name", delta=3))
    )
    [loc] = as_list(result)
    assert loc.uri == uri(funcs)
    assert text_at(funcs, loc.range) == "zone_name"
    open_file(client, funcs)
    [loc] = as_list(await definition(client, funcs, position_of(funcs, "zone}", delta=1)))
    assert loc.range.start == position_of(funcs, "zone {}")


async def test_nothing_to_find_is_an_empty_answer(client, workspace):
    ws = workspace("nav")
    main = ws / "main.hcl"
    open_file(client, main)
    assert as_list(await definition(client, main, position_of(main, "apiVersion"))) == []


async def test_references_across_files(client, workspace):
    ws = workspace("nav")
    main, funcs = ws / "main.hcl", ws / "functions.hcl"
    open_file(client, main)
    pos = position_of(main, "bucket {")
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=doc(main), position=pos, context=types.ReferenceContext(include_declaration=True)
        )
    )
    found = sorted((r.uri, r.range.start.line) for r in refs)
    assert found == sorted(
        [
            (uri(main), pos.line),
            (uri(main), position_of(main, "bucket.status").line),
            (uri(funcs), position_of(funcs, "bucket.status").line),
        ]
    )
    assert all(text_at(ws / r.uri.rsplit("/", 1)[1], r.range) == "bucket" for r in refs)
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=doc(main), position=pos, context=types.ReferenceContext(include_declaration=False)
        )
    )
    assert len(refs) == 2


async def test_rename_a_resource_everywhere(client, workspace):
    ws = workspace("nav")
    main, funcs = ws / "main.hcl", ws / "functions.hcl"
    open_file(client, main)
    pos = position_of(main, "bucket.status", delta=2)
    prep = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=doc(main), position=pos)
    )
    assert prep is not None
    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=doc(main), position=pos, new_name="store")
    )
    assert set(edit.changes) == {uri(main), uri(funcs)}
    assert len(edit.changes[uri(main)]) == 2
    assert len(edit.changes[uri(funcs)]) == 1
    for u, edits in edit.changes.items():
        for e in edits:
            assert e.new_text == "store"
            assert text_at(ws / u.rsplit("/", 1)[1], e.range) == "bucket"


async def test_rename_a_function_renames_invoke_strings(client, workspace):
    ws = workspace("nav")
    main, funcs = ws / "main.hcl", ws / "functions.hcl"
    open_file(client, funcs)
    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=doc(funcs), position=position_of(funcs, "zone_name"), new_name="zone_label")
    )
    assert {u: len(es) for u, es in edit.changes.items()} == {uri(main): 1, uri(funcs): 1}
    [e] = edit.changes[uri(main)]
    assert text_at(main, e.range) == "zone_name"


async def test_rename_rejects_invalid_names_and_clashes(client, workspace):
    ws = workspace("nav")
    main = ws / "main.hcl"
    open_file(client, main)
    await diagnostics_for(client, main)
    pos = position_of(main, "zones  =")
    for bad in ["9lives", "a b", "region"]:
        with pytest.raises(Exception) as err:
            await client.text_document_rename_async(
                types.RenameParams(text_document=doc(main), position=pos, new_name=bad)
            )
        assert "name" in str(err.value) or "already" in str(err.value)
    # Renaming a local applies: the edits cover both files' uses.
    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=doc(main), position=pos, new_name="azs")
    )
    assert sum(len(es) for es in edit.changes.values()) == 4


async def test_navigation_inside_an_imported_module(client, workspace):
    """A module's files live in a subdirectory: their URIs and names
    resolve in the module's own scope."""
    ws = workspace("modules")
    main, mod = ws / "main.hcl", ws / "modules" / "bucket" / "main.hcl"
    open_file(client, mod)
    [loc] = as_list(await definition(client, mod, position_of(mod, "param.region", delta=7)))
    assert loc.uri == uri(mod)
    assert text_at(mod, loc.range) == "region"
    assert loc.range.start == position_of(mod, 'region" {', delta=0)
    [loc] = as_list(await definition(client, mod, position_of(mod, "bucket.status", delta=1)))
    assert loc.uri == uri(mod)
    assert loc.range.start == position_of(mod, "bucket {")
    open_file(client, main)
    [loc] = as_list(await definition(client, main, position_of(main, "logs.arn", delta=1)))
    assert loc.uri == uri(main)
    assert loc.range.start == position_of(main, 'logs" {')
    with pytest.raises(Exception):
        await client.text_document_rename_async(
            types.RenameParams(
                text_document=doc(mod), position=position_of(mod, "param.region", delta=7), new_name="zone"
            )
        )
