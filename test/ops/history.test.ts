// Trust inputs from history stay right when counted incrementally: new commits add to the cached
// counts, and a revert of an already counted commit makes the count start over.
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { feedback } from '../../server/src/ops/edit.js';
import { memoryHistories } from '../../server/src/ops/history.js';
import { requireMainTip } from '../../server/src/ops/read.js';
import { storeMemory } from '../../server/src/ops/store-memory.js';
import { git, makeStore, removeDir } from '../helpers/store.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) removeDir(path.dirname(dirs.pop()!));
});

it('counts feedback incrementally and starts over when an old commit is reverted', async () => {
  const { dir, ctx } = await makeStore();
  dirs.push(dir);
  await storeMemory(ctx, { topic: 'Cache', context: 'Redis for sessions.', metadata: { topicId: 'cache' } });
  await feedback(ctx, 'cache', 'up');
  const first = await memoryHistories(ctx.store, await requireMainTip(ctx.store));
  expect(first.get('cache')).toMatchObject({ feedbackUp: 1, feedbackDown: 0 });

  await feedback(ctx, 'cache', 'up');
  await feedback(ctx, 'cache', 'down');
  const second = await memoryHistories(ctx.store, await requireMainTip(ctx.store));
  expect(second.get('cache')).toMatchObject({ feedbackUp: 2, feedbackDown: 1 });
  expect(second.get('cache')?.lastCommit?.action).toBe('feedback');

  // A person reverts the first vote with plain git (an empty commit in `git revert`'s own words,
  // since git refuses to revert an empty commit): it no longer counts.
  const firstVote = git(dir, 'log', '--format=%H', '--grep=Memory-Feedback: up', '--reverse').split('\n')[0];
  git(
    dir,
    'commit',
    '--allow-empty',
    '-m',
    'Revert "memory(feedback): cache"',
    '-m',
    `This reverts commit ${firstVote}.`,
  );
  const third = await memoryHistories(ctx.store, await requireMainTip(ctx.store));
  expect(third.get('cache')).toMatchObject({ feedbackUp: 1, feedbackDown: 1 });
});
