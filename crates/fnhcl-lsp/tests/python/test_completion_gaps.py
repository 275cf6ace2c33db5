"""The completion and hover gaps of the first round: module instance
exports, switch attributes, hover on a local's own name, and invoke with a
string that is only part of its first argument."""

from lsprotocol import types

from conftest import uri
from test_completion import complete, marked
from test_hover import hover

SWITCH = """
switch "tier" {
  case "small" {
    export {
      class = "s"
    }
  }
  default {
    export {
      class = "none"
    }
  }
}
"""


async def test_module_instance_completes_its_exports(client, workspace):
    ws = workspace("modules")
    main = ws / "main.hcl"
    text = main.read_text().replace("module.logs.arn", "module.logs.|")
    items, _ = await complete(client, main, text)
    labels = [i.label for i in items]
    assert labels == ["arn"]


async def test_switch_completes_its_attributes_and_cases(client, workspace):
    ws = workspace("modules")
    main = ws / "main.hcl"
    base = main.read_text() + SWITCH
    items, _ = await complete(client, main, base.replace("module.logs.arn", "switch.tier.|"))
    assert [i.label for i in items] == ["evaluated", "branches", "case", "class"]
    items, _ = await complete(client, main, base.replace("module.logs.arn", "switch.tier.case.|"), version=2)
    assert [i.label for i in items] == ["small"]


async def test_hover_on_a_local_name_shows_its_definition_and_type(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    text = 'locals {\n  cou|nt = 3\n  label = "x-${count}"\n}\n'
    h = await hover(client, main, text)
    assert h.contents.value.startswith("**local** `count`: `number`")
    assert "count = 3" in h.contents.value
    assert h.range == types.Range(start=types.Position(line=1, character=2), end=types.Position(line=1, character=7))


async def test_invoke_with_a_computed_name_shows_the_builtin_signature(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    text = 'function tag {\n  arg name {}\n  body = name\n}\nlocals {\n  a = invoke("ta" + "g", { | })\n}\n'
    body, pos = marked(text)
    from conftest import open_file

    open_file(client, main, body)
    help = await client.text_document_signature_help_async(
        types.SignatureHelpParams(text_document=types.TextDocumentIdentifier(uri=uri(main)), position=pos)
    )
    label = help.signatures[0].label
    assert label.startswith("invoke(")
    assert not label.startswith('invoke("tag"')


async def test_composite_connection_body_proposes_the_xrd_connection_keys(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    text = main.read_text() + '\ncomposite connection {\n  body = {\n    endpoint = "x"\n    |\n  }\n}\n'
    items, _ = await complete(client, main, text)
    assert [i.label for i in items] == ["password"]
    assert items[0].detail == "connection secret key (XRD)"
