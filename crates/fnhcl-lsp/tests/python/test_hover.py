"""Hover: CRD field descriptions and types in bodies, XRD fields of
`req.composite` paths, built-in docs, what a reference is, block keywords."""

import asyncio

from lsprotocol import types

from conftest import open_file, uri
from test_completion import marked


async def hover(client, path, text, version=1):
    body, pos = marked(text)
    open_file(client, path, body, version)
    return await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri(path)),
            position=pos,
        )
    )


async def test_xrd_field_of_a_req_composite_path(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    text = main.read_text().replace("req.composite.spec.region", "req.composite.spec.reg|ion")
    h = await hover(client, main, text)
    assert h.contents.kind == types.MarkupKind.Markdown
    assert "The AWS region of the buckets." in h.contents.value
    assert "`string`" in h.contents.value
    line = text.replace("|", "").splitlines()[1]
    start = line.index("region", line.index("spec."))
    assert h.range.start == types.Position(line=1, character=start)
    assert h.range.end == types.Position(line=1, character=start + len("region"))


async def test_crd_field_in_a_body(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    text = main.read_text().replace("region = region", "reg|ion = region")
    deadline = asyncio.get_running_loop().time() + 10
    version = 1
    while True:
        h = await hover(client, main, text, version)
        if h is not None or asyncio.get_running_loop().time() > deadline:
            break
        version += 1
        await asyncio.sleep(0.1)
    assert h is not None, "no hover once the CRDs are loaded"
    assert "**region**" in h.contents.value
    assert "`string`" in h.contents.value


async def test_local_builtin_and_block_keyword(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    base = main.read_text()
    h = await hover(client, main, base.replace("toset(names)", "toset(na|mes)"))
    assert "**local** `names`" in h.contents.value
    assert "names = req.composite.spec.buckets" in h.contents.value
    h = await hover(client, main, base.replace("toset(names)", "to|set(names)"), 2)
    assert "toset(v list(any))" in h.contents.value or "toset(" in h.contents.value
    h = await hover(client, main, base.replace("resources buckets", "reso|urces buckets"), 3)
    assert "collection" in h.contents.value
    h = await hover(client, main, base.replace("name = each.value", "name = each.val|ue"), 4)
    assert "element of `for_each`" in h.contents.value


async def test_req_resource_names_its_block_even_in_broken_text(client, workspace):
    ws = workspace("storage")
    text = (
        'resource db {\n  body = {\n    apiVersion = "s3.aws.upbound.io/v1beta1"\n    kind = "Bucket"\n  }\n}\n'
        "locals {\n  arn = req.resource.d|b.status.\n"
    )
    h = await hover(client, ws / "refs.hcl", text)
    assert "**resource** `db` (refs.hcl:1)" in h.contents.value
    assert "`Bucket`" in h.contents.value


async def test_nothing_on_operators(client, workspace):
    ws = workspace("storage")
    assert await hover(client, ws / "x.hcl", "locals {\n  a = 1 |+ 2\n}\n") is None


async def test_invoke_names_a_user_function(client, workspace):
    ws = workspace("storage")
    text = (
        'function label {\n  description = "A label."\n  arg name {\n    description = "Its name."\n  }\n'
        "  body = name\n}\n"
        'locals {\n  x = invoke("la|bel", { name = "a" })\n}\n'
    )
    h = await hover(client, ws / "fns.hcl", text)
    assert h.contents.value == "**function** `label`\n- `name`: Its name.\n\nA label."
