// Starts the compiled MCP server on stdio for the tests: `node test/mcp/serve.mjs STORE_DIR`, built
// as `cairn mcp --store DIR` builds it (the composition root opens the store and its search process).
const { createRoot, openContext } = await import(new URL('../../dist/compose.js', import.meta.url).href);
const { runMcpStdio } = await import(new URL('../../dist/mcp/index.js', import.meta.url).href);
const env = process.env;
const ctx = await openContext({ store: process.argv[2], env, cwd: process.cwd() });
const search = await createRoot({ env, cwd: process.cwd() }).search(ctx, { background: true });
process.exitCode = await runMcpStdio({ ctx, search });
