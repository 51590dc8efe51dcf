-- Cairn for Neovim 0.7+: starts `cairn lsp --stdio` for markdown buffers inside a Cairn store (the
-- nearest folder upward with cairn.yaml), one client per store. Usage: require('cairn').setup({})
local M = {}

local defaults = {
  cmd = { 'cairn', 'lsp', '--stdio' },
  filetypes = { 'markdown' },
  root_marker = 'cairn.yaml',
  settings = {},
  capabilities = nil, -- e.g. require('cmp_nvim_lsp').default_capabilities()
  on_attach = nil, -- function(client, bufnr)
}
M.config = vim.deepcopy(defaults)

local uv = vim.uv or vim.loop
local started = {} -- store root -> client id (0.7 has no vim.lsp.start to reuse clients)

--- The nearest folder at or above `path` that holds the root marker, or nil outside a store.
function M.find_root(path)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  while true do
    if uv.fs_stat(dir .. '/' .. M.config.root_marker) then return dir end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then return nil end
    dir = parent
  end
end

--- Starts (or reuses) the store's client and attaches buffer `bufnr`; does nothing outside a store.
function M.attach(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local root = name ~= '' and M.find_root(name)
  if not root then return end
  local config = {
    name = 'cairn',
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
    settings = M.config.settings,
    capabilities = M.config.capabilities,
    on_attach = M.config.on_attach,
  }
  if vim.lsp.start then -- 0.8+: reuses the client with the same name and root
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  local id = started[root]
  if not (id and vim.lsp.get_client_by_id(id)) then
    id = vim.lsp.start_client(config)
    if not id then
      return vim.notify('cairn: could not start ' .. table.concat(config.cmd, ' '), vim.log.levels.ERROR)
    end
    started[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

local function cairn_client(bufnr)
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
  for _, c in pairs(clients) do
    if c.name == 'cairn' then return c end
  end
  vim.notify('cairn: no Cairn language server on this buffer (is it inside a store?)', vim.log.levels.WARN)
end

--- Runs one of the server's commands (cairn.review, cairn.accept, ...) and shows the answer.
local function command(name, args)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = cairn_client(bufnr)
  if not client then return end
  local params = { command = name, arguments = args }
  local function show(err, result)
    if err then return vim.notify('cairn: ' .. err.message, vim.log.levels.ERROR) end
    vim.notify(vim.inspect(result), vim.log.levels.INFO)
  end
  if vim.fn.has('nvim-0.11') == 1 then
    client:request('workspace/executeCommand', params, show, bufnr)
  else
    client.request('workspace/executeCommand', params, show, bufnr)
  end
end

--- setup(opts): opts override the defaults above (cmd, filetypes, root_marker, settings, ...).
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  local group = vim.api.nvim_create_augroup('cairn', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args) M.attach(args.buf) end,
  })
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do -- buffers opened before setup()
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(M.config.filetypes, vim.bo[buf].filetype) then M.attach(buf) end
  end
  local cmd = vim.api.nvim_create_user_command
  cmd('CairnSearch', function(a) vim.lsp.buf.workspace_symbol(a.args) end, { nargs = '?', desc = 'Search memories' })
  cmd('CairnReview', function() command('cairn.review', {}) end, { desc = 'List candidate memories' })
  cmd('CairnAccept', function(a) command('cairn.accept', { a.args }) end, { nargs = 1, desc = 'Accept a candidate' })
  cmd('CairnReject', function(a) command('cairn.reject', { a.fargs[1], table.concat(a.fargs, ' ', 2) }) end, { nargs = '+', desc = 'Reject a candidate' })
end

return M
