"""Signature help: built-ins (active parameter by commas, variadics) and
user functions called through `invoke("name", { ... })`."""

from lsprotocol import types

from conftest import open_file, uri
from test_completion import marked


async def signature(client, path, text, version=1):
    body, pos = marked(text)
    open_file(client, path, body, version)
    return await client.text_document_signature_help_async(
        types.SignatureHelpParams(
            text_document=types.TextDocumentIdentifier(uri=uri(path)),
            position=pos,
        )
    )


def param_labels(help):
    sig = help.signatures[0]
    out = []
    for p in sig.parameters:
        a, b = p.label
        out.append(sig.label[a:b])
    return out


async def test_builtin_with_active_parameter_and_variadics(client, workspace):
    ws = workspace("storage")
    path = ws / "sig.hcl"
    help = await signature(client, path, 'locals {\n  a = join(",", |\n')
    assert help.signatures[0].label == "join(separator string, lists ...list(string)) string"
    assert param_labels(help) == ["separator string", "lists ...list(string)"]
    assert help.active_parameter == 1
    assert "separator" in help.signatures[0].documentation.value
    # Further variadic arguments stay on the variadic parameter.
    help = await signature(client, path, 'locals {\n  a = join(",", [], [], |\n', 2)
    assert help.active_parameter == 1
    # The innermost call counts.
    help = await signature(client, path, "locals {\n  a = upper(format(|\n", 3)
    assert help.signatures[0].label.startswith("format(")
    assert help.active_parameter == 0


async def test_user_function_arguments_through_invoke(client, workspace):
    ws = workspace("storage")
    path = ws / "fns.hcl"
    text = (
        'function tag {\n  description = "Makes a tag."\n'
        '  arg key {\n    description = "The key."\n  }\n'
        '  arg value {\n    default = ""\n  }\n'
        '  body = "${key}=${value}"\n}\n'
        'locals {\n  t = invoke("tag", { key = "a", value = |\n'
    )
    help = await signature(client, path, text)
    sig = help.signatures[0]
    assert sig.label == 'invoke("tag", { key, value? })'
    assert param_labels(help) == ["key", "value?"]
    assert help.active_parameter == 1
    assert sig.parameters[0].documentation == "The key."
    assert sig.documentation.value == "Makes a tag."


async def test_no_signature_outside_calls(client, workspace):
    ws = workspace("storage")
    assert await signature(client, ws / "sig.hcl", "locals {\n  a = (1 + |\n") is None
