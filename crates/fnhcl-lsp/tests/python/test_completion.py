"""Completion: block types and attributes, references, built-ins, user
functions, CRD and XRD fields, on half-typed text that does not parse."""

import asyncio

from lsprotocol import types

from conftest import BIN, open_file, uri


def marked(text: str):
    """The text without its `|` cursor mark, and the mark's position."""
    i = text.index("|")
    before = text[:i]
    line = before.count("\n")
    col = len(before) - (before.rfind("\n") + 1)
    return text[:i] + text[i + 1 :], types.Position(line=line, character=col)


async def complete(client, path, text, version=1):
    """Opens `path` with `text` (cursor marked by `|`) and completes there."""
    body, pos = marked(text)
    open_file(client, path, body, version)
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(path)),
            position=pos,
        )
    )
    items = result.items if isinstance(result, types.CompletionList) else (result or [])
    return items, pos


def labels(items):
    return [i.label for i in items]


async def until_items(client, path, text, want, timeout=10.0):
    """Completes until `want` is offered (CRDs load in the background)."""
    deadline = asyncio.get_running_loop().time() + timeout
    version = 1
    while True:
        items, pos = await complete(client, path, text, version)
        if want in labels(items):
            return items, pos
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"{want!r} never offered; last: {labels(items)}")
        version += 1
        await asyncio.sleep(0.1)


def server_capabilities():
    """The capabilities `fn-hcl lsp` answers `initialize` with (a raw
    JSON-RPC exchange: the pytest-lsp client does not keep them)."""
    import json
    import subprocess

    def frame(msg):
        body = json.dumps(msg).encode()
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
    proc = subprocess.run(
        [BIN, "lsp"],
        input=frame(init)
        + frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        + frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        + frame({"jsonrpc": "2.0", "method": "exit"}),
        capture_output=True,
        timeout=30,
    )
    out = proc.stdout
    header, _, rest = out.partition(b"\r\n\r\n")
    length = int(header.split(b":")[1])
    return json.loads(rest[:length])["result"]["capabilities"]


def test_server_announces_completion_signature_help_and_hover():
    caps = server_capabilities()
    assert set(caps["completionProvider"]["triggerCharacters"]) == {".", "[", '"'}
    assert set(caps["signatureHelpProvider"]["triggerCharacters"]) == {"(", ","}
    assert caps["hoverProvider"] is True


async def test_top_level_block_types_replace_the_partial_word(client, workspace):
    ws = workspace("storage")
    items, pos = await complete(client, ws / "new.hcl", "locals {\n}\nres|")
    assert {"resource", "resources", "requirement"} <= set(labels(items))
    assert "body" not in labels(items)
    res = next(i for i in items if i.label == "resource")
    assert res.kind == types.CompletionItemKind.Struct
    assert "composed resource" in res.documentation.value
    edit = res.text_edit
    assert edit.range.start == types.Position(line=2, character=0)
    assert edit.range.end == pos
    assert edit.new_text.startswith("resource")


async def test_attributes_inside_blocks_from_the_block_schemas(client, workspace):
    ws = workspace("storage")
    items, _ = await complete(client, ws / "new.hcl", "resources xs {\n  |\n}\n")
    got = set(labels(items))
    assert {"for_each", "template", "condition", "optional", "locals"} <= got
    assert "ready" not in got
    items, _ = await complete(client, ws / "new.hcl", "composite |", version=2)
    assert set(labels(items)) == {"status", "connection", "condition", "ready"}


async def test_req_composite_fields_from_the_xrd_while_the_file_does_not_parse(client, workspace):
    ws = workspace("storage")
    items, _ = await complete(client, ws / "main.hcl", "locals {\n  region = req.composite.spec.|\n")
    got = {i.label: i for i in items}
    # The XRD's own fields and those Crossplane adds to every composite.
    assert {"region", "buckets", "compositionRef"} <= set(got)
    assert "bucketCount" not in got
    assert got["region"].detail == "string"
    assert got["region"].documentation.value == "The AWS region of the buckets."
    items, _ = await complete(client, ws / "main.hcl", "locals {\n  x = req.|\n", version=2)
    assert {"composite", "resource", "resources", "extra_resources", "context"} <= set(labels(items))


async def test_declared_names_after_req(client, workspace):
    ws = workspace("storage")
    text = (
        'requirement cluster {\n  select {\n    apiVersion = "v1"\n    kind = "ConfigMap"\n  }\n}\n'
        "resource db {\n  body = {}\n}\n"
        "locals {\n  a = req.extra_resources.|\n}\n"
    )
    items, _ = await complete(client, ws / "extra.hcl", text)
    assert labels(items) == ["cluster"]
    items, _ = await complete(client, ws / "extra.hcl", text.replace("extra_resources.|", "resources.|"), 2)
    # The collection of main.hcl: names come from every file of the program.
    assert labels(items) == ["buckets"]
    items, _ = await complete(client, ws / "extra.hcl", text.replace("extra_resources.|", "resource.|"), 3)
    assert labels(items) == ["db"]


async def test_locals_each_self_and_builtins_in_scope(client, workspace):
    ws = workspace("storage")
    text = (ws / "main.hcl").read_text().replace("name = each.value", "name = |")
    items, _ = await complete(client, ws / "main.hcl", text)
    got = set(labels(items))
    assert {"region", "names", "each", "self", "req", "upper", "true", "null"} <= got
    upper = next(i for i in items if i.label == "upper")
    assert upper.kind == types.CompletionItemKind.Function
    assert upper.detail == "upper(str string) string"
    # A snippet (`upper(${1})`) for clients that take snippets, else the name.
    item_caps = client.capabilities.text_document.completion.completion_item
    if item_caps and item_caps.snippet_support:
        assert upper.insert_text_format == types.InsertTextFormat.Snippet
        assert upper.text_edit.new_text == "upper(${1})"
    else:
        assert upper.insert_text_format == types.InsertTextFormat.PlainText
        assert upper.text_edit.new_text == "upper"
    text = (ws / "main.hcl").read_text().replace("name = each.value", "name = each.|")
    items, _ = await complete(client, ws / "main.hcl", text, 2)
    assert set(labels(items)) == {"key", "value"}


async def test_invoke_offers_the_user_functions(client, workspace):
    ws = workspace("storage")
    text = (
        'function label {\n  description = "A label."\n  arg name {}\n  body = name\n}\n'
        'locals {\n  x = invoke("|\n}\n'
    )
    items, _ = await complete(client, ws / "fns.hcl", text)
    assert labels(items) == ["label"]
    assert items[0].documentation.value == "A label."


async def test_api_versions_kinds_and_body_fields_from_the_crds(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    text = main.read_text().replace('apiVersion = "s3.aws.upbound.io/v1beta1"', 'apiVersion = "|"')
    items, _ = await until_items(client, main, text, "s3.aws.upbound.io/v1beta1")
    assert "iam.aws.upbound.io/v1beta1" in labels(items)
    text = main.read_text().replace('kind       = "Bucket"', 'kind       = "|"')
    items, _ = await complete(client, main, text, 50)
    assert labels(items) == ["Bucket"]
    text = main.read_text().replace("region = region", "|")
    items, _ = await complete(client, main, text, 51)
    got = {i.label: i for i in items}
    assert {"region", "tags", "objectLockEnabled"} <= set(got)
    assert got["region"].kind == types.CompletionItemKind.Field
    assert got["region"].detail.startswith("string")
    assert got["region"].documentation.value


async def test_composite_status_fields_from_the_xrd(client, workspace):
    ws = workspace("storage")
    text = "composite status {\n  body = {\n    |\n"
    items, _ = await complete(client, ws / "status.hcl", text)
    got = set(labels(items))
    assert {"bucketCount", "phase", "conditions"} <= got
    assert "region" not in got


async def test_every_prefix_of_a_file_gets_an_answer(client, workspace):
    """Half-typed text at every point: each request answers (no error)."""
    ws = workspace("storage")
    full = (ws / "main.hcl").read_text()
    path = ws / "main.hcl"
    for n, cut in enumerate(range(0, len(full), 7)):
        items, _ = await complete(client, path, full[:cut] + "|", n + 1)
        assert isinstance(items, (list, tuple))
