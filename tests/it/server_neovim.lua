-- Drives Neovim's built-in LSP client (0.7 and later) against `autosync server`: attach to the
-- buffer, wait for the race diagnostics, apply the "Insert the barriers" code action, write
-- the buffer. Exits 0 on success; on failure prints why and exits 1.
local file, bin = vim.env.AUTOSYNC_FILE, vim.env.AUTOSYNC_BIN
local function fail(msg)
  io.stderr:write('neovim test: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end

vim.cmd('edit ' .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({
  name = 'autosync',
  cmd = { bin, 'server' },
  root_dir = vim.fn.fnamemodify(file, ':h'),
})
if not id then fail('the client did not start') end
vim.lsp.buf_attach_client(buf, id)

if not vim.wait(90000, function() return #vim.diagnostic.get(buf) >= 2 end, 50) then
  fail('no diagnostics')
end
local d = vim.diagnostic.get(buf)[1]
local params = {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.lnum, character = d.col } },
  context = { diagnostics = {} },
}
local results = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 90000)
local action
for _, r in pairs(results or {}) do
  for _, a in ipairs(r.result or {}) do
    if a.title:find('^Insert the') then action = a end
  end
end
if not action then fail('no "Insert the barriers" action: ' .. vim.inspect(results)) end
vim.lsp.util.apply_workspace_edit(action.edit, 'utf-16')
vim.cmd('silent write')
vim.cmd('qall!')
