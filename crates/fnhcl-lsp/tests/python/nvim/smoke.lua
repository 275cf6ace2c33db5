-- Headless Neovim smoke test of `fn-hcl lsp` (Neovim 0.7 or later: uses
-- vim.lsp.start_client, which every version since 0.5 has, rather than
-- 0.8's vim.lsp.start). Run by test_neovim.py:
--   FN_HCL_BIN=... FNHCL_FILE=.../main.hcl nvim --headless --clean -c "luafile smoke.lua"
-- Prints "ok: <step>" per step; exits non-zero on the first failure.

local bin = assert(os.getenv("FN_HCL_BIN"), "FN_HCL_BIN")
local file = assert(os.getenv("FNHCL_FILE"), "FNHCL_FILE")

local function say(s)
  io.stdout:write(s .. "\n")
end

local function check(cond, msg)
  if not cond then
    error(msg, 2)
  end
end

local function run()
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = "fn-hcl",
    cmd = { bin, "lsp" },
    root_dir = vim.fn.fnamemodify(file, ":h"),
  })
  check(id, "the client did not start")
  vim.lsp.buf_attach_client(buf, id)
  local client = vim.lsp.get_client_by_id(id)
  check(vim.wait(10000, function() return client.initialized end, 20), "not initialized")
  say("ok: initialize")

  -- The fixture file has `region = regoin` on purpose.
  local function codes()
    local out = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      table.insert(out, tostring(d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)))
    end
    table.sort(out)
    return table.concat(out, ",")
  end
  check(vim.wait(10000, function() return codes():find("E0301") ~= nil end, 20),
    "no E0301 diagnostic; got: " .. codes())
  local d = vim.diagnostic.get(buf)[1]
  say("ok: diagnostics " .. codes() .. " (" .. d.message .. ")")

  -- Fix it with an edit Neovim sends incrementally.
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  for i, l in ipairs(lines) do
    if l:find("regoin") then
      vim.api.nvim_buf_set_lines(buf, i - 1, i, false, { (l:gsub("regoin", "region")) })
    end
  end
  check(vim.wait(10000, function() return #vim.diagnostic.get(buf) == 0 end, 20),
    "diagnostics not cleared: " .. codes())
  say("ok: diagnostics cleared after the fix")

  -- Formatting: mis-indent a line, format, compare.
  local before = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  vim.api.nvim_buf_set_lines(buf, 1, 2, false, { "        " .. vim.trim(before[2]) })
  local params = vim.lsp.util.make_formatting_params({ tabSize = 2, insertSpaces = true })
  local resp = client.request_sync("textDocument/formatting", params, 5000, buf)
  check(resp and resp.result, "no formatting result: " .. vim.inspect(resp))
  vim.lsp.util.apply_text_edits(resp.result, buf, "utf-16")
  local after = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  check(vim.deep_equal(before, after), "formatting did not restore the file:\n" .. table.concat(after, "\n"))
  say("ok: formatting")

  -- Live preview: inlay hints and the render command (xr.yaml is beside).
  local caps = client.server_capabilities or client.resolved_capabilities or {}
  if caps.inlayHintProvider then
    local r = client.request_sync("textDocument/inlayHint", {
      textDocument = { uri = vim.uri_from_bufnr(buf) },
      range = { start = { line = 0, character = 0 }, ["end"] = { line = #after, character = 0 } },
    }, 10000, buf)
    local labels = {}
    for _, h in ipairs((r and r.result) or {}) do
      table.insert(labels, type(h.label) == "string" and h.label or vim.inspect(h.label))
    end
    check(table.concat(labels, " | "):find('"eu%-west%-1"'), "no region hint: " .. table.concat(labels, " | "))
    say("ok: inlay hints " .. table.concat(labels, " | "))
  end
  if caps.executeCommandProvider then
    local r = client.request_sync("workspace/executeCommand", {
      command = "fn-hcl.render",
      arguments = { vim.uri_from_bufnr(buf) },
    }, 10000, buf)
    check(r and type(r.result) == "string" and r.result:find("kind: Bucket"), "render: " .. vim.inspect(r))
    say("ok: fn-hcl.render")
  end

  -- Hover and definition, when the server has them.
  local pos = nil
  for i, l in ipairs(after) do
    local c = l:find("= region$")
    if c then pos = { line = i - 1, character = c + 1 } end
  end
  local where = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = pos }
  if pos and caps.hoverProvider then
    local r = client.request_sync("textDocument/hover", where, 5000, buf)
    check(r and r.err == nil, "hover failed: " .. vim.inspect(r))
    say("ok: hover")
  end
  if pos and caps.definitionProvider then
    local r = client.request_sync("textDocument/definition", where, 5000, buf)
    check(r and r.err == nil, "definition failed: " .. vim.inspect(r))
    say("ok: definition")
  end
  client.stop()
end

local ok, err = pcall(run)
if ok then
  say("PASS")
  vim.cmd("qall!")
else
  io.stderr:write("FAIL: " .. tostring(err) .. "\n")
  vim.cmd("cquit 1")
end
