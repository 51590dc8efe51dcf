// A new summary whose slug is taken gets the first free `<slug>-N`. A proposal another clone made
// under `<slug>-2` and this clone fetched (origin/candidate/<slug>-2) holds that id too: before, an
// agent here took `-2` as well, and two different memories fought for one candidate branch (the
// second pushed as `<slug>-2--<agent>`, then read as an update of the first). Two clones of one bare
// remote, in-process operations.
import { afterEach, describe, expect, it } from 'vitest';
import { storeMemory } from '../../server/src/ops/store-memory.js';
import { syncStore } from '../../server/src/ops/sync.js';
import { gitAsync } from '../helpers/git-server.js';
import { agentPayload, twoClones, type ClonePair } from './team.js';

describe('an id taken by a proposal fetched from another clone', () => {
  let pair: ClonePair | undefined;
  afterEach(() => pair?.cleanup());

  it('is not picked again; the same summary is said to be proposed already', async () => {
    pair = await twoClones('cairn-free-id-');
    const [ana, ben] = pair.ctxs;
    const onMain = await storeMemory(ana, agentPayload('Use Redis for cache', { confidence: 0.95 }));
    expect(onMain.metadata).toMatchObject({ topic_id: 'use-redis-for-cache', status: 'active' });
    const anas = {
      ...agentPayload('Use Redis for cache'),
      context: 'Redis, because the sessions need expiry and the team runs it already.',
    };
    const proposed = await storeMemory(ana, anas);
    expect(proposed.metadata).toMatchObject({ topic_id: 'use-redis-for-cache-2', status: 'candidate' });
    await syncStore(ana);
    await syncStore(ben);

    const bens = await storeMemory(ben, {
      ...agentPayload('Use Redis for cache', { agent: 'pilot' }),
      context: 'Redis for the page cache only: the sessions stay in Postgres.',
    });
    expect(bens.metadata).toMatchObject({ topic_id: 'use-redis-for-cache-3', status: 'candidate' });

    const again = await storeMemory(ben, anas);
    expect(again).toMatchObject({ unchanged: true });
    expect(again.metadata).toMatchObject({
      topic_id: 'use-redis-for-cache-2',
      status: 'candidate',
      branch: 'origin/candidate/use-redis-for-cache-2',
    });
    const local = await gitAsync(
      pair.dirs[1],
      'rev-parse',
      '-q',
      '--verify',
      'candidate/use-redis-for-cache-2',
    );
    expect(local.code).not.toBe(0);
  });
});
