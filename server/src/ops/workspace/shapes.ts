// The objects the workspace keeps one of per file, each built by one literal: 10,000 entries then
// share one hidden class (object spreads gave each entry a shape of its own, some 650 bytes apiece,
// and a warm start more to collect).
import type { FileFacts } from './facts.js';
import type { StoreFile } from './workspace.js';

type Where = Pick<StoreFile, 'rel' | 'onDisk' | 'branch' | 'link' | 'open' | 'stamp' | 'key' | 'readAt'>;

/** A StoreFile from its facts and where it comes from. */
export function fileOf(facts: FileFacts, where: Where): StoreFile {
  return {
    id: facts.id,
    title: facts.title,
    tags: facts.tags,
    summary: facts.summary,
    refIds: facts.refIds,
    supersedes: facts.supersedes,
    supersededBy: facts.supersededBy,
    rel: where.rel,
    onDisk: where.onDisk,
    branch: where.branch,
    link: where.link,
    open: where.open,
    stamp: where.stamp,
    key: where.key,
    readAt: where.readAt,
  };
}
