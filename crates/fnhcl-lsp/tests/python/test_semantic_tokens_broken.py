"""Semantic tokens while the file does not parse: the recovered tree
classifies what parses, the lexer the text the recovery leaves out, so
highlighting does not flicker away mid-edit."""

from conftest import change_file
from lsprotocol import types

from conftest import uri
from test_semantic_tokens import decode, tokens


async def test_half_typed_file_keeps_a_degraded_classification(client, workspace):
    ws = workspace("nav")
    text = '# note\nlocals {\n  a = [1,\n  b = upper("x")\nresource "r" {\n  body = { k = req.composite.spec }\n'
    toks = await tokens(client, ws / "functions.hcl", text)
    words = [(w, t, m) for (_, _, w, t, m) in toks]
    assert ("# note", "comment", []) in words
    assert ("locals", "keyword", []) in words
    assert ("1", "number", []) in words
    assert ("upper", "function", []) in words
    assert ('"x"', "string", []) in words
    assert ("resource", "keyword", []) in words
    assert ('"r"', "class", ["definition"]) in words
    assert ("k", "property", []) in words
    assert ("req", "keyword", []) in words
    assert ("composite", "keyword", []) in words
    assert ("spec", "property", []) in words


async def test_tokens_survive_an_edit_that_breaks_the_file(client, workspace):
    ws = workspace("nav")
    path = ws / "functions.hcl"
    text = 'locals {\n  greeting = upper("hi")\n}\n'
    before = await tokens(client, path, text)
    assert ("greeting", "variable", ["definition"]) in [(w, t, m) for (_, _, w, t, m) in before]
    # Delete the closing brace: the file no longer parses.
    change_file(client, path, 2, [((2, 0), (2, 1), "")])
    result = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=uri(path)))
    )
    after = decode(text[:-2] + "\n", result.data)
    # Same words, same kinds (a string may come in pieces: quote, text, quote).
    joined = {}
    for (line, _, w, t, m) in after:
        joined.setdefault((line, t, tuple(m)), []).append(w)
    assert {(l, t, m): "".join(ws) for (l, t, m), ws in joined.items()} == {
        (l, t, tuple(m)): w for (l, _, w, t, m) in before
    }
