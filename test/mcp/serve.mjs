// Starts the compiled MCP server on stdio for the tests: `node test/mcp/serve.mjs STORE_DIR`.
// (`cairn mcp --store DIR` does the same once the CLI wires it.)
const { runMcpStdio } = await import(new URL('../../dist/mcp/index.js', import.meta.url).href);
process.exitCode = await runMcpStdio({ locate: { store: process.argv[2], env: process.env } });
