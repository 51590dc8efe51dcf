-- Neovim 0.11+ native configuration: put clients/neovim on 'runtimepath', then vim.lsp.enable('cairn').
-- Starts only for markdown files inside a Cairn store (a folder upward holding cairn.yaml).
return {
  cmd = { 'cairn', 'lsp', '--stdio' },
  filetypes = { 'markdown' },
  root_dir = function(bufnr, on_dir)
    local found = vim.fs.find('cairn.yaml', { upward = true, path = vim.fs.dirname(vim.api.nvim_buf_get_name(bufnr)) })[1]
    if found then on_dir(vim.fs.dirname(found)) end
  end,
}
