"""Smoke tests with a real Neovim (headless), when `nvim` is installed:
nvim/smoke.lua starts `fn-hcl lsp` through Neovim's own LSP client and
checks diagnostics, their clearing after an edit, formatting, the live
preview, and hover/definition when the server has them."""

import os
import shutil
import subprocess

import pytest

from conftest import BIN, HERE

NVIM = shutil.which("nvim")

pytestmark = pytest.mark.skipif(NVIM is None, reason="nvim is not installed (apt-get install neovim)")


def test_neovim_smoke(workspace):
    ws = workspace("storage")
    main = ws / "main.hcl"
    main.write_text(main.read_text().replace("region = region", "region = regoin"))
    env = dict(os.environ, FN_HCL_BIN=BIN, FNHCL_FILE=str(main), HOME=str(ws.parent))
    r = subprocess.run(
        [NVIM, "--headless", "--clean", "-c", f"luafile {HERE / 'nvim' / 'smoke.lua'}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "PASS" in out, out
    for step in ["ok: diagnostics E0301", "ok: diagnostics cleared", "ok: formatting", "ok: fn-hcl.render"]:
        assert step in out, out
