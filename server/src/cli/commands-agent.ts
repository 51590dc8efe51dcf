// `cairn mcp` and `cairn context`: what agent runtimes start and inject. The MCP SDK is loaded
// only when `cairn mcp` runs, so other commands start fast.
import { num, type Command } from './command.js';
import { EXIT, writeJson, writeText } from './io.js';

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'Serve the agent tools (memory_store, memory_retrieve, ...) over MCP on stdio',
  usage: 'cairn mcp [--store DIR]',
  needsStore: true,
  async run(_args, io, open, root) {
    const ctx = await open();
    // The index lives in a worker: tool calls never wait for a build (answers say `partial`).
    const search = await root.search(ctx, {
      background: true,
      log: (m) => void io.stderr.write(`${m}\n`),
    });
    // knowledge_graph reads scan every memory with facts: on a new clone, scan them ahead.
    await root.scanAhead(ctx);
    const { runMcpStdio } = await import('../mcp/server.js');
    return runMcpStdio({
      ctx,
      search,
      stdin: io.stdin,
      stdout: io.stdout,
      stderr: io.stderr,
      graphScanMs: msSetting(io.env.CAIRN_GRAPH_SCAN_MS),
    });
  },
};

/** A time in ms from the environment (tests shorten one); undefined when unset or not a number >= 0. */
function msSetting(value: string | undefined): number | undefined {
  const ms = value === undefined || value === '' ? NaN : Number(value);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

export const contextCommand: Command = {
  name: 'context',
  summary: 'Print the memory block an agent runtime injects at session start',
  usage: 'cairn context [--tokens N] [--no-search-tool] [--json]',
  needsStore: true,
  options: { tokens: { type: 'string' }, 'no-search-tool': { type: 'boolean' } },
  async run(args, io, open) {
    const ctx = await open();
    const { contextBlock } = await import('../ops/context-block.js');
    const made = await contextBlock(ctx, {
      budgetTokens: num(args, 'tokens'),
      hasSearchTool: !args.values['no-search-tool'],
    });
    // The block goes into an agent's prompt: an id that reads as an instruction is its handle there.
    const { withholdIdsIn, withheldIdsNote } = await import('../core/withheld-id.js');
    const { value: block, handles } = withholdIdsIn(made);
    const note = handles.length ? `\n${withheldIdsNote(handles)}.\n` : '';
    if (args.json) writeJson(io, { text: block.text + note, ...block.json });
    else writeText(io, block.text + note);
    for (const w of block.json.withheld) {
      writeText(io, `cairn context: withheld ${w.source} line ${w.line} (${w.rules.join(', ')})\n`, 'stderr');
    }
    return EXIT.OK;
  },
};
