// Live updates: Server-Sent Events telling the page a store changed, so a commit made by an agent,
// by git or by another window appears without a reload. While a page listens, each store's refs are
// fingerprinted a few times a second (ops/live.ts) and its memories folder is watched for edits in
// the work tree; a change sends `event: change` with the store's index, and the page fetches again.
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { ServerResponse } from 'node:http';
import { storeFingerprint } from '../ops/live.js';
import type { StoreServices } from '../ops/context.js';

const POLL_MS = 250;
const HEARTBEAT_MS = 15_000;

export class LiveUpdates {
  private readonly clients = new Set<ServerResponse>();
  private readonly fingerprints: (string | null)[];
  private readonly watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(private readonly stores: StoreServices[]) {
    this.fingerprints = stores.map(() => null);
  }

  /** Keeps `res` open as an event stream until the page goes away. */
  subscribe(res: ServerResponse): void {
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
    res.write('retry: 1000\n\n');
    this.clients.add(res);
    res.on('close', () => {
      this.clients.delete(res);
      if (this.clients.size === 0) this.stop();
    });
    this.start();
  }

  private start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.heartbeat = setInterval(() => this.send(': heartbeat\n\n'), HEARTBEAT_MS);
    this.stores.forEach((s, index) => {
      try {
        const w = watch(path.join(s.ctx.store.root, 'memories'), () => this.changed(index, 'worktree'));
        w.on('error', () => w.close());
        this.watchers.push(w);
      } catch {
        // No memories folder yet: refs are still polled.
      }
    });
    void this.poll();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.timer = this.heartbeat = null;
    for (const w of this.watchers.splice(0)) w.close();
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (const [index, s] of this.stores.entries()) {
        const now = await storeFingerprint(s.ctx).catch(() => null);
        const before = this.fingerprints[index];
        this.fingerprints[index] = now;
        if (before !== null && now !== null && now !== before) this.changed(index, 'refs');
      }
    } finally {
      this.polling = false;
    }
  }

  private changed(store: number, what: 'refs' | 'worktree'): void {
    this.send(`event: change\ndata: ${JSON.stringify({ store, what })}\n\n`);
  }

  private send(chunk: string): void {
    for (const res of this.clients) res.write(chunk);
  }

  close(): void {
    this.stop();
    for (const res of this.clients) res.end();
    this.clients.clear();
  }
}
