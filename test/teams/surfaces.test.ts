// Issue 10, first defect: after a plain `git fetch`, the second clone saw no candidates
// (`cairn review`: "No candidates await review"; `cairn accept`: NOT_A_CANDIDATE). Remote
// candidates are now first-class everywhere: review, accept, reject, status, list, the language
// server and MCP memory_review. A file:// remote; the built CLI, the LSP over streams, MCP over stdio.
import { afterEach, describe, expect, it } from 'vitest';
import { gitAsync } from '../helpers/git-server.js';
import { PLAIN_CAPS, startClient } from '../lsp/lsp-helper.js';
import { buildDist, call, connect } from '../mcp/helpers.js';
import { agentPayload, makeTeam, statuses, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

async function proposedAndFetched() {
  team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
  const [a, b] = team.clones;
  const id = (await a.store(agentPayload('Queue retries'))).metadata.topic_id as string;
  await a.git('push', '--quiet', 'origin', `candidate/${id}`);
  await b.git('fetch', '--quiet', 'origin'); // plain git, no cairn sync
  return { a, b, id };
}

describe('candidates fetched with plain git', () => {
  it('are listed, reviewed and accepted by the CLI', async () => {
    const { b, id } = await proposedAndFetched();
    expect((await b.json('review')).candidates.map((c: { id: string }) => c.id)).toEqual([id]);
    expect((await b.json('status')).candidates).toEqual([id]);
    expect((await statuses(b)).get(id)).toEqual(['candidate']);
    expect((await b.json('get', id)).status).toBe('candidate');
    // The same proposal from an agent in this clone changes nothing (no second proposal).
    const again = await b.store(agentPayload('Queue retries'));
    expect(again).toMatchObject({
      unchanged: true,
      reason: `the same proposal already awaits review on origin/candidate/${id}`,
    });
    expect(await b.git('branch', '--list', 'candidate/*')).toBe('');
    const accepted = await b.json('accept', id);
    expect(accepted).toMatchObject({ exit: 0, id });
    expect((await statuses(b)).get(id)).toEqual(['active']);
    expect(await b.git('status', '--porcelain')).toBe('');
    const merge = await b.git('log', '-1', '--format=%P');
    expect(merge.trim().split(' ')[1]).toBe((await b.git('rev-parse', `origin/candidate/${id}`)).trim());
  });

  it('are rejected by the CLI: tagged, and no longer a candidate although the branch is still fetched', async () => {
    const { b, id } = await proposedAndFetched();
    expect((await b.json('reject', id, '--why', 'not now')).tag).toBe(`rejected/${id}`);
    expect((await statuses(b)).get(id)).toEqual(['rejected']);
    expect((await b.json('review')).candidates).toEqual([]);
    expect((await gitAsync(b.dir, 'rev-parse', '--verify', `origin/candidate/${id}`)).code).toBe(0);
  });

  it('are seen by the language server, which accepts one', async () => {
    const { b, id } = await proposedAndFetched();
    const p = await startClient(b.dir, PLAIN_CAPS);
    try {
      p.open('daily/2026-01-11.md', `Look at [[${id}]].\n`);
      const diags = await p.waitDiagnostics('daily/2026-01-11.md', (d) => d.length > 0);
      expect(diags.map((d) => d.code)).toEqual(['ref/candidate']);
      const review = (await p.conn.sendRequest('cairn/review', {})) as { id: string; branch: string }[];
      expect(review.map((r) => [r.id, r.branch])).toEqual([[id, `origin/candidate/${id}`]]);
      await p.conn.sendRequest('cairn/accept', { id });
      await p.waitDiagnostics('daily/2026-01-11.md', (d) => d.length === 0);
    } finally {
      p.close();
    }
  });

  it('are listed by MCP memory_review', async () => {
    buildDist();
    const { b, id } = await proposedAndFetched();
    const c = await connect(b.dir);
    try {
      const r = await call(c.client, 'memory_review', {});
      expect(r.json.candidates).toMatchObject([{ id, branch: `origin/candidate/${id}` }]);
    } finally {
      await c.close();
    }
  });
});
