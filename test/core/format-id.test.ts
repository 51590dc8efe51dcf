import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { memoryIdFromPath, slugify, validateId } from '../../server/src/core/format/index.js';

describe('validateId', () => {
  test.each([
    'a',
    '0',
    'redis-caching',
    'v1.2.3',
    'a_b-c.d',
    '2026-01-31-notes',
    'x'.repeat(80),
    'con-tips',
    'nullable',
  ])('accepts %j', (id) => expect(validateId(id)).toBeNull());

  const hostile: unknown[] = [
    '',
    '../x',
    '..',
    'a..b',
    '.hidden',
    '/abs',
    'a/b',
    'a\\b',
    'C:\\x',
    'a\u0000b',
    'a b',
    ' a',
    'a\n',
    'a\tb',
    'Upper',
    'ÉTÉ',
    'café',
    'a-',
    '-a',
    'a.',
    '_a',
    'con',
    'NUL',
    'nul',
    'aux',
    'prn',
    'com1',
    'lpt9',
    'con.backup',
    'x'.repeat(81),
    'a:b',
    'a*b',
    'a?b',
    'a|b',
    'gateway.lock',
    'a.b.lock',
    '~a',
    '$(rm)',
    42,
    null,
    undefined,
    ['a'],
  ];
  test.each(hostile.map((id) => [id]))('rejects %j with a message', (id) => {
    const error = validateId(id);
    expect(error).toEqual(expect.any(String));
    expect(error!.length).toBeGreaterThan(10);
  });

  // Fails before for ids ending in ".lock": stored as active, then any candidate of them failed
  // with "candidate/gateway.lock is not a valid git branch name".
  test('every valid id names a valid candidate branch (git check-ref-format)', () => {
    const branchOk = (id: string) => {
      try {
        execFileSync('git', ['check-ref-format', '--branch', `candidate/${id}`], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    };
    const parts = fc.constantFrom('a', 'z9', '.', '_', '-', 'lock', '.lock', 'x.lock', '0');
    fc.assert(
      fc.property(fc.array(parts, { minLength: 1, maxLength: 6 }), (p) => {
        const id = p.join('');
        if (validateId(id) === null) expect(branchOk(id)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  test('messages name the fix', () => {
    expect(validateId('Redis Cache')).toMatch(/redis-cache/);
    expect(validateId('a/b')).toMatch(/path separator/);
    expect(validateId('con')).toMatch(/device name/);
  });
});

describe('slugify', () => {
  test.each([
    ['Redis caching decision', 'redis-caching-decision'],
    ['  Café: déjà vu!  ', 'cafe-deja-vu'],
    ['Straße & Œuvre', 'strasse-oeuvre'],
    ['Ørsted Łódź', 'orsted-lodz'],
    ['../../etc/passwd', 'etc-passwd'],
    ['C:\\Windows\\System32', 'c-windows-system32'],
    ['日本語', 'memory'],
    ['', 'memory'],
    ['---', 'memory'],
    ['CON', 'con-memory'],
    ['v1.2 release', 'v1-2-release'],
  ])('%j -> %j', (topic, slug) => expect(slugify(topic)).toBe(slug));

  test('at most 64 characters, cut at a word boundary, always a valid id', () => {
    const slug = slugify('word '.repeat(40));
    expect(slug.length).toBeLessThanOrEqual(64);
    expect(slug.endsWith('-')).toBe(false);
    expect(slug).toMatch(/^(word-)+word$/);
    for (const topic of ['a'.repeat(200), '🎉 party', 'x-'.repeat(50), 'Ünïcödé ТЕКСТ 123', 'lpt1']) {
      expect(validateId(slugify(topic)), topic).toBeNull();
    }
  });
});

describe('memoryIdFromPath', () => {
  test.each([
    ['memories/redis.md', 'redis'],
    ['store/memories/a.b.md', 'a.b'],
    ['memories\\win.md', 'win'],
    ['/abs/store/memories/x.md', 'x'],
    ['MEMORY.md', null],
    ['daily/2026-01-31.md', null],
    ['memories/sub/x.md', null],
    ['memories/x.txt', null],
    ['memories/.md', null],
  ])('%j -> %j', (path, id) => expect(memoryIdFromPath(path)).toBe(id));
});
