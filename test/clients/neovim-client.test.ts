// The Neovim client (clients/neovim/lua/cairn) in a real headless Neovim against the real language
// server: setup() must start the server for a markdown file inside a store, attach the buffer and
// show the server's diagnostics, and leave markdown files outside stores alone.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeDir } from '../helpers/store.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const CLIENT_DIR = path.join(REPO, 'clients/neovim');

const nvimMissing = spawnSync('nvim', ['--version'], { encoding: 'utf8' }).error !== undefined;
const notBuilt = !existsSync(path.join(REPO, 'dist/lsp/index.js'));
if (nvimMissing)
  console.warn(
    'skipping the Neovim client test: nvim is not on PATH (bash ../shared/lsp-harness/install-editors.sh)',
  );
else if (notBuilt)
  console.warn('skipping the Neovim client test: dist/ is not built (npx tsc -p tsconfig.json)');

/** The real `cairn lsp --stdio`, as a user's editor would start it. */
function serverCommand(): string[] {
  return [process.execPath, path.join(REPO, 'bin/cairn.js'), 'lsp', '--stdio'];
}

const memory = (id: string, body: string) =>
  `---\nid: ${id}\ntitle: ${id.replace(/-/g, ' ')}\nkind: note\nupdated: 2026-01-09\n---\n${body}\n`;

/** Lua that loads the client from clients/neovim, opens two files and writes what Neovim saw. */
const initLua = (o: { cmd: string[]; inside: string; outside: string; out: string }) => `
vim.opt.runtimepath:prepend(${JSON.stringify(CLIENT_DIR)})
local encode = (vim.json and vim.json.encode) or vim.fn.json_encode
local R = { version = tostring(vim.version().major) .. '.' .. tostring(vim.version().minor) }
local function finish(code)
  local f = assert(io.open(${JSON.stringify(o.out)}, 'w'))
  f:write(encode(R))
  f:close()
  vim.cmd(code == 0 and 'qall!' or ('cquit! ' .. code))
end
vim.defer_fn(function() R.error = 'timeout'; finish(2) end, 25000)
local function cairn_clients(buf)
  local names = {}
  local list = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = buf }) or vim.lsp.buf_get_clients(buf)
  for _, c in pairs(list) do if c.name == 'cairn' then table.insert(names, c.config.root_dir or '(no root)') end end
  return names
end
local ok, err = pcall(function()
  require('cairn').setup({ cmd = vim.fn.json_decode(${JSON.stringify(JSON.stringify(o.cmd))}) })
  vim.cmd('filetype plugin indent on') -- as in a user config: detection runs after init files
  vim.cmd('edit ' .. vim.fn.fnameescape(${JSON.stringify(o.inside)}))
  local buf = vim.api.nvim_get_current_buf()
  R.filetype = vim.bo[buf].filetype
  vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  R.inside_roots = cairn_clients(buf) -- after the wait: 0.7 lists a client once it has initialized
  R.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(R.diagnostics, { lnum = d.lnum, col = d.col, message = d.message, code = d.code or lsp.code })
  end
  R.search_command = vim.fn.exists(':CairnSearch')
  vim.cmd('edit ' .. vim.fn.fnameescape(${JSON.stringify(o.outside)}))
  R.outside_roots = cairn_clients(vim.api.nvim_get_current_buf())
  R.client_count = 0 -- by id: unlike the client lists, this includes clients still initializing
  for id = 1, 20 do
    local c = vim.lsp.get_client_by_id(id)
    if c and c.name == 'cairn' then R.client_count = R.client_count + 1 end
  end
end)
if not ok then R.error = tostring(err) end
finish(ok and 0 or 1)
`;

interface NvimView {
  version: string;
  filetype: string;
  inside_roots: string[];
  outside_roots: string[];
  diagnostics: { lnum: number; col: number; message: string; code?: string }[];
  search_command: number;
  client_count: number;
  error?: string;
}

const dirs: string[] = [];
// The server an editor started may still be writing its code cache there as it exits: retried.
afterAll(() => dirs.forEach(removeDir));

describe.skipIf(nvimMissing || notBuilt)('Neovim client (headless nvim, clients/neovim/lua/cairn)', () => {
  it('starts the server for store files, shows its diagnostics, and ignores markdown elsewhere', async () => {
    const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'cairn-nvim-')));
    dirs.push(tmp);
    const store = path.join(tmp, 'store');
    mkdirSync(path.join(store, 'memories'), { recursive: true });
    writeFileSync(path.join(store, 'cairn.yaml'), 'version: 1\n');
    writeFileSync(
      path.join(store, 'memories/deploy.md'),
      memory('deploy', 'Deploys go through CI.\nSee [[missing-id]] for the rollback plan.'),
    );
    writeFileSync(path.join(store, 'memories/ci.md'), memory('ci', 'CI runs the tests on every push.'));
    const gitEnv = {
      ...process.env,
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@example.com',
    };
    for (const args of [
      ['init', '-q', '-b', 'main'],
      ['add', '-A'],
      ['commit', '-q', '-m', 'store(init): test'],
    ]) {
      execFileSync('git', args, { cwd: store, env: gitEnv });
    }
    const outside = path.join(tmp, 'elsewhere/notes.md');
    mkdirSync(path.dirname(outside));
    writeFileSync(outside, '# Notes\n\nSee [[missing-id]].\n');
    const out = path.join(tmp, 'nvim.json');
    writeFileSync(
      path.join(tmp, 'init.lua'),
      initLua({ cmd: serverCommand(), inside: path.join(store, 'memories/deploy.md'), outside, out }),
    );

    const xdg = Object.fromEntries(
      ['CONFIG', 'DATA', 'STATE', 'CACHE'].map((k) => [`XDG_${k}_HOME`, path.join(tmp, k.toLowerCase())]),
    );
    const stderr = await new Promise<string>((resolve) => {
      const args = ['--headless', '-n', '-i', 'NONE', '-u', path.join(tmp, 'init.lua')];
      const child = execFile(
        'nvim',
        args,
        { env: { ...process.env, ...xdg }, timeout: 40_000 },
        (_err, _out, err) => resolve(String(err)),
      );
      child.stdin?.end();
    });
    expect(existsSync(out), `nvim wrote no result; stderr: ${stderr}`).toBe(true);
    const view = JSON.parse(readFileSync(out, 'utf8')) as NvimView;

    expect(view.error).toBeUndefined();
    expect(view.filetype).toBe('markdown');
    expect(view.inside_roots).toEqual([store]);
    expect(view.outside_roots).toEqual([]);
    expect(view.client_count).toBe(1);
    expect(view.search_command).toBe(2);
    const unknownRef = view.diagnostics.find((d) => d.message.includes('missing-id'));
    expect(unknownRef, JSON.stringify(view.diagnostics)).toBeDefined();
    expect(unknownRef!.lnum).toBe(7); // 0-based: the body's second line, after six front-matter lines
    expect(unknownRef!.code).toBe('ref/unknown');
  });
});
