// `cairn undo ID` after the memory was changed again by a teammate. Ben accepts Ana's agent's
// proposal; Ana corrects the memory and syncs; Ben syncs and runs `cairn undo ID` to take back his
// accept. Before, it reverted Ana's correction (the newest change to the memory) without a word.
// Now it refuses (FROM_REMOTE), names the later change and what to run, and changes nothing; the
// git revert it prints works, after which `cairn undo ID` takes back the accept. A change of the
// memory made in this clone is still this clone's to undo by id.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentPayload, makeTeam, statuses, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

describe('cairn undo ID when a teammate changed the memory after it landed', () => {
  it("refuses to revert the teammate's change, names it and the way out, and changes nothing", async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [ana, ben] = team.clones;
    const id = (await ana.store(agentPayload('Use Redis'))).metadata.topic_id as string;
    await ana.sync();
    await ben.sync();
    expect((await ben.run('accept', id)).code).toBe(0);
    await ben.sync();
    await ana.sync();
    expect((await ana.run('correct', id, 'We use Redis 7 for the session cache.')).code).toBe(0);
    const correction = (await ana.git('rev-parse', 'main')).trim();
    await ana.sync();
    expect((await ben.sync()).main).toBe('fast-forward');
    const tip = (await ben.git('rev-parse', 'main')).trim();
    const file = path.join(ben.dir, 'memories', `${id}.md`);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('Redis 7');

    for (const args of [
      ['undo', id, '--dry-run'],
      ['undo', id],
    ]) {
      const r = await ben.json(...args);
      expect(r.errorCode, JSON.stringify(r)).toBe('FROM_REMOTE');
      expect(r.oid).toBe(correction);
      expect(r.error).toContain(`"memory(correct): ${id}" (${correction.slice(0, 8)}) by Ana`);
      expect(r.error).toContain(`git revert ${correction.slice(0, 12)}`);
      expect(r.error).toContain(`cairn forget ${id}`);
      expect((await ben.git('rev-parse', 'main')).trim()).toBe(tip);
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect((await ben.git('status', '--porcelain')).trim()).toBe('');
    }
    // The plain undo points at git revert too: `cairn undo ID` would refuse this change.
    const plain = await ben.json('undo');
    expect(plain.errorCode).toBe('FROM_REMOTE');
    expect(plain.error).toContain(`git revert ${correction.slice(0, 12)}`);

    // Ben does what it says; then his accept is the memory's newest change, and undo takes it back.
    await ben.git('revert', '--no-edit', correction.slice(0, 12));
    expect(readFileSync(file, 'utf8')).not.toContain('Redis 7');
    const undone = await ben.json('undo', id);
    expect(undone.exit, JSON.stringify(undone)).toBe(0);
    expect(undone.undone.subject).toBe(`memory(accept): ${id}`);
    expect((await statuses(ben)).get(id)).toBeUndefined();
    expect((await ben.git('status', '--porcelain')).trim()).toBe('');
  }, 120_000);

  it("still undoes this clone's own later change by id", async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [ana, ben] = team.clones;
    const id = (await ana.store(agentPayload('Use Redis', { confidence: 0.95 }))).metadata.topic_id as string;
    await ana.sync();
    await ben.sync();
    expect((await ben.run('correct', id, 'We use Redis 7 for the session cache.')).code).toBe(0);
    const undone = await ben.json('undo', id);
    expect(undone.exit, JSON.stringify(undone)).toBe(0);
    expect(undone.undone.subject).toBe(`memory(correct): ${id}`);
    expect((await statuses(ben)).get(id)).toEqual(['active']);
  }, 120_000);
});
