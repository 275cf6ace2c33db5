"""Document symbols, workspace symbols and folding ranges."""

from lsprotocol import types

from conftest import open_file, position_of, text_at, uri


def doc(path):
    return types.TextDocumentIdentifier(uri=uri(path))


async def test_document_symbols_are_a_tree_of_blocks(client, workspace):
    ws = workspace("nav")
    main = ws / "main.hcl"
    open_file(client, main)
    syms = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(main)))
    assert [(s.name, s.kind) for s in syms] == [
        ("locals", types.SymbolKind.Namespace),
        ("bucket", types.SymbolKind.Class),
        ("policies", types.SymbolKind.Array),
    ]
    locals_ = syms[0]
    assert [(c.name, c.kind) for c in locals_.children] == [
        ("region", types.SymbolKind.Variable),
        ("zones", types.SymbolKind.Variable),
    ]
    bucket = syms[1]
    assert bucket.detail == "resource"
    assert text_at(main, bucket.selection_range) == "bucket"
    assert bucket.range.start == position_of(main, "resource bucket")
    assert [c.name for c in bucket.children] == ["locals", "body"]
    assert [c.name for c in bucket.children[0].children] == ["label"]
    policies = syms[2]
    assert [c.name for c in policies.children] == ["for_each", "template"]


async def test_workspace_symbols_filter_by_query_across_files(client, workspace):
    ws = workspace("nav")
    open_file(client, ws / "main.hcl")
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="zone"))
    names = [(s.name, s.kind, s.location.uri.rsplit("/", 1)[1]) for s in found]
    assert names == [
        ("zone_name", types.SymbolKind.Function, "functions.hcl"),
        ("zones", types.SymbolKind.Variable, "main.hcl"),
    ]
    funcs = ws / "functions.hcl"
    fn = found[0]
    assert text_at(funcs, fn.location.range) == "zone_name"
    assert await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="nothing-like-it")) == []
    everything = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))
    assert {s.name for s in everything} == {"region", "zones", "bucket", "policies", "zone_name", "label", "region_prefix"}


async def test_folding_ranges(client, workspace):
    ws = workspace("nav")
    main = ws / "main.hcl"
    text = "# one\n# two\n" + main.read_text()
    main.write_text(text)
    open_file(client, main)
    folds = await client.text_document_folding_range_async(types.FoldingRangeParams(text_document=doc(main)))
    spans = [(f.start_line, f.end_line, f.kind) for f in folds]
    # The three comment lines at the top are one run.
    assert spans[0] == (0, 2, types.FoldingRangeKind.Comment)
    lines = text.splitlines()
    res = lines.index("resource bucket {")
    end = res + lines[res:].index("}")
    assert (res, end, types.FoldingRangeKind.Region) in spans
    # The multi-line body object of the bucket folds too.
    body = res + lines[res:].index("  body = {")
    assert (body, body + lines[body:].index("  }"), types.FoldingRangeKind.Region) in spans
    assert all(s < e for (s, e, _) in spans)
