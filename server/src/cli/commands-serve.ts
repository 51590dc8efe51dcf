// `cairn serve`: the local review page (server/src/web). Loopback only, a random token in the URL.
import path from 'node:path';
import { packageRoot } from '../package-root.js';
import { isoNow, type StoreServices } from '../ops/context.js';
import { removeServeInfo, writeServeInfo } from '../ops/serve-info.js';
import { num, str, strs, type Command } from './command.js';
import { EXIT, UsageError, writeJson, writeLine } from './io.js';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Open the review page: candidates, memories, search, graph, activity (loopback only)',
  usage: 'cairn serve [--port N] [--host 127.0.0.1|localhost|::1] [--store DIR]...',
  // --store may be given several times here: one page, a picker between the stores.
  options: { port: { type: 'string' }, host: { type: 'string' }, store: { type: 'string', multiple: true } },
  async run(args, io, open, root) {
    const web = await import('../web/server.js');
    const { loopbackAddress } = await import('../web/security.js');
    const host = str(args, 'host') ?? '127.0.0.1';
    const address = loopbackAddress(host);
    if (!address)
      throw new UsageError(
        `--host ${host}: the review page listens on loopback only (127.0.0.1, localhost or ::1); ` +
          'it can accept and reject memories, so it is never offered to the network',
      );
    const port = num(args, 'port') ?? 0;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port takes 0-65535');
    const log = (m: string) => void io.stderr.write(`${m}\n`);
    const dirs = strs(args, 'store');
    const stores: StoreServices[] = [];
    if (dirs.length === 0) {
      const ctx = await open();
      stores.push({ ctx, ...(await searchOf(root, ctx, log)) });
    } else {
      for (const dir of new Set(dirs.map((d) => path.resolve(io.cwd, d))))
        stores.push(await root.openStore(dir, log));
    }
    for (const s of stores) s.search.refresh();
    const server = await web
      .startReviewServer({ stores, address, port, assetsDir: path.join(packageRoot(), 'dist', 'web'), log })
      .catch(async (err: unknown) => {
        for (const s of stores) await s.close();
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
        throw new UsageError(
          `port ${port} on ${host} is in use by another program: choose another --port, ` +
            'or leave --port out (or --port 0) for a free one',
        );
      });
    // Listening for Ctrl-C before the address is printed: whoever reads it may stop us at once.
    const stopped = new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    const started = isoNow(stores[0].ctx);
    for (const [i, s] of stores.entries())
      await writeServeInfo(s.ctx.store, {
        url: server.storeUrl(i),
        pid: process.pid,
        store: s.ctx.store.root,
        started,
      });
    if (args.json)
      writeJson(io, { url: server.url, port: server.port, stores: stores.map((s) => s.ctx.store.root) });
    else {
      writeLine(io, `Cairn review page: ${server.url}`);
      writeLine(io, `Serving ${stores.map((s) => s.ctx.store.root).join(', ')}. Ctrl-C stops it.`);
    }
    await stopped;
    await server.close();
    for (const s of stores) {
      await removeServeInfo(s.ctx.store);
      await s.close();
    }
    return EXIT.OK;
  },
};

async function searchOf(
  root: Parameters<Command['run']>[3],
  ctx: StoreServices['ctx'],
  log: (m: string) => void,
): Promise<Omit<StoreServices, 'ctx'>> {
  const search = await root.search(ctx, { background: true, log });
  return { search, close: () => search.close() };
}
