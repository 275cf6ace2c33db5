"""Semantic tokens (full): decoded from the LSP delta encoding and checked
against the text they cover, including after multi-byte characters."""

from lsprotocol import types

from conftest import open_file, uri

# The server's legend (handlers/tokens.rs, in fnhcl_ide::TokenKind order).
TYPES = ["keyword", "class", "enumMember", "variable", "property", "string", "number", "function", "operator", "parameter", "comment"]
MODIFIERS = ["definition"]


def decode(text: str, data: list[int]):
    """(line, utf16 col, text, type, modifiers) of each token."""
    lines = text.split("\n")
    out = []
    line = col = 0
    for i in range(0, len(data), 5):
        dl, dc, length, typ, mods = data[i : i + 5]
        line += dl
        col = col + dc if dl == 0 else dc
        units = lines[line].encode("utf-16-le")
        word = units[2 * col : 2 * (col + length)].decode("utf-16-le")
        names = [m for b, m in enumerate(MODIFIERS) if mods & (1 << b)]
        out.append((line, col, word, TYPES[typ], names))
    return out


async def tokens(client, path, text):
    open_file(client, path, text)
    result = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=uri(path)))
    )
    return decode(text, result.data)


async def test_tokens_of_the_navigation_fixture(client, workspace):
    ws = workspace("nav")
    main = ws / "main.hcl"
    toks = await tokens(client, main, main.read_text())
    words = [(w, t, m) for (_, _, w, t, m) in toks]
    assert ("locals", "keyword", []) in words
    assert ("region", "variable", ["definition"]) in words
    assert ("bucket", "class", ["definition"]) in words
    assert ("policies", "class", ["definition"]) in words
    assert ("toset", "function", []) in words
    assert ("req", "keyword", []) in words
    assert ("resource", "keyword", []) in words  # req.resource
    assert ("atProvider", "property", []) in words
    assert ("each", "keyword", []) in words
    assert ("key", "keyword", []) in words
    # After "é😀-${": `region` is found at its UTF-16 column.
    assert ('"é😀-${', "string", []) in words
    i = words.index(('"é😀-${', "string", []))
    assert words[i + 1] == ("region", "variable", [])
    # Sorted and not overlapping.
    spans = [(l, c, c + len(w.encode("utf-16-le")) // 2) for (l, c, w, _, _) in toks]
    assert spans == sorted(spans)
    assert all(a[0] < b[0] or a[2] <= b[1] for a, b in zip(spans, spans[1:]))


async def test_composite_labels_operators_and_for_keywords(client, workspace):
    ws = workspace("nav")
    text = 'composite status {\n  body = { n = [for z in zones : z if z != "a"], m = !false }\n}\n'
    toks = await tokens(client, ws / "functions.hcl", text)
    words = [(w, t) for (_, _, w, t, _) in toks]
    assert words == [
        ("composite", "keyword"),
        ("status", "enumMember"),
        ("body", "keyword"),
        ("n", "property"),
        ("for", "keyword"),
        ("z", "variable"),
        ("in", "keyword"),
        ("zones", "variable"),
        ("z", "variable"),
        ("if", "keyword"),
        ("z", "variable"),
        ("!=", "operator"),
        ('"a"', "string"),
        ("m", "property"),
        ("!", "operator"),
        ("false", "keyword"),
    ]


async def test_heredocs_are_split_per_line(client, workspace):
    ws = workspace("nav")
    text = 'locals {\n  doc = <<EOT\nline one\nline two\nEOT\n}\n'
    toks = await tokens(client, ws / "functions.hcl", text)
    strings = [(l, w) for (l, _, w, t, _) in toks if t == "string"]
    assert strings == [(1, "<<EOT"), (2, "line one"), (3, "line two"), (4, "EOT")]
