"""Live preview: with an xr.yaml beside the program, inlay hints show each
local's value and what a deferred block waits for, and the `fn-hcl.render`
command returns what `fn-hcl render` prints."""

import subprocess

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from conftest import BIN, change_file, diagnostics_for, open_file, uri

WHOLE = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=9999, character=0))


async def hints(client, path):
    result = await client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=uri(path)), range=WHOLE)
    )
    return result or []


def labels(path, hs):
    """(line text before the hint, label) pairs."""
    lines = path.read_text().splitlines() if not isinstance(path, list) else path
    return [(lines[h.position.line][: h.position.character].strip(), h.label) for h in hs]


async def render(client, path):
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="fn-hcl.render", arguments=[uri(path)])
    )


async def test_locals_show_their_values(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    open_file(client, main)
    got = labels(main, await hints(client, main))
    assert ("region = req.composite.spec.region", '→ "eu-west-1"') in got
    assert ("names  = req.composite.spec.buckets", '→ ["logs", "data"]') in got


async def test_hints_follow_edits(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    open_file(client, main)
    await hints(client, main)
    text = main.read_text().replace("region = req.composite.spec.region", 'region = upper("us-east-2")')
    change_file(client, main, 2, text)
    got = labels(text.splitlines(), await hints(client, main))
    assert ('region = upper("us-east-2")', '→ "US-EAST-2"') in got


async def test_deferred_blocks_name_what_they_wait_for(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    open_file(client, main)
    text = main.read_text() + (
        "\nresource policy {\n  body = {\n    apiVersion = \"iam.aws.upbound.io/v1beta1\"\n"
        "    kind = \"Policy\"\n    spec = { forProvider = { arn = req.resource.role.status.arn } }\n  }\n}\n"
    )
    change_file(client, main, 2, text)
    got = await hints(client, main)
    deferred = [h for h in got if str(h.label).startswith("deferred")]
    assert len(deferred) == 1, got
    assert "req.resource.role" in deferred[0].label
    assert "discarded resource policy" in str(deferred[0].tooltip)


async def test_render_command_prints_what_fn_hcl_render_prints(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    open_file(client, main)
    out = await render(client, main)
    assert isinstance(out, str)
    assert "kind: XStorage" in out
    assert out.count("kind: Bucket") == 2
    assert "region: eu-west-1" in out
    # The same as the CLI given a Composition holding the same program.
    (ws / "composition.yaml").unlink()
    bundle = subprocess.run([BIN, "package", str(ws)], capture_output=True, text=True, check=True).stdout
    comp = ws.parent / "comp.yaml"
    comp.write_text(
        "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: preview\n"
        "spec:\n  compositeTypeRef:\n    apiVersion: example.com/v1\n    kind: XStorage\n  mode: Pipeline\n"
        "  pipeline:\n  - step: hcl\n    functionRef:\n      name: function-hcl\n    input:\n"
        "      apiVersion: hcl.fn.crossplane.io/v1beta1\n      kind: HclInput\n      hcl: |\n"
        + "".join("        " + line + "\n" if line else "\n" for line in bundle.splitlines())
    )
    cli = subprocess.run(
        [BIN, "render", str(ws / "xr.yaml"), str(comp)], capture_output=True, text=True, check=True
    ).stdout
    assert out == cli


async def test_render_uses_observed_resources(client, workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    text = main.read_text() + (
        "\ncomposite status {\n  body = { phase = req.resource.buckets-logs.status.phase }\n}\n"
    )
    main.write_text(text)
    (ws / "observed").mkdir()
    (ws / "observed" / "logs.yaml").write_text(
        "apiVersion: s3.aws.upbound.io/v1beta1\nkind: Bucket\nmetadata:\n  name: logs\n"
        "  annotations:\n    crossplane.io/composition-resource-name: buckets-logs\nstatus:\n  phase: Ready\n"
    )
    open_file(client, main)
    out = await render(client, main)
    assert "phase: Ready" in out


async def test_without_an_xr_there_are_no_hints_and_render_says_why(client, workspace):
    ws = workspace("storage")
    (ws / "xr.yaml").unlink()
    main = ws / "main.hcl"
    open_file(client, main)
    assert await hints(client, main) == []
    with pytest.raises(JsonRpcException) as err:
        await render(client, main)
    assert "no xr.yaml" in str(err.value)


async def test_a_changed_xr_on_disk_refreshes_the_hints(client, workspace):
    """Saving xr.yaml (a watched file) drops the preview; a client that
    supports `workspace/inlayHint/refresh` (Neovim 0.10+) is told to ask
    again, and the new hints show the new XR's values."""
    import asyncio

    refreshed = asyncio.Event()

    @client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def on_refresh(params):
        refreshed.set()
        return None

    ws = workspace("storage")
    main = ws / "main.hcl"
    open_file(client, main)
    assert ("region = req.composite.spec.region", '→ "eu-west-1"') in labels(main, await hints(client, main))
    xr = ws / "xr.yaml"
    xr.write_text(xr.read_text().replace("eu-west-1", "ap-south-1"))
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=uri(xr), type=types.FileChangeType.Changed)]
        )
    )
    supports = bool(
        client.capabilities
        and client.capabilities.workspace
        and client.capabilities.workspace.inlay_hint
        and client.capabilities.workspace.inlay_hint.refresh_support
    )
    if supports:
        await asyncio.wait_for(refreshed.wait(), 10)
    got = labels(main, await hints(client, main))
    assert ("region = req.composite.spec.region", '→ "ap-south-1"') in got
