// Credentials the secret rules missed (session 27's attacker pass): a `.pgpass` line, a short
// password in `PGPASSWORD=...` (the catch-all rule wants 16 random characters), a token
// base64-encoded inside a command (`echo ... | base64 -d`), a known-format token split by spaces or
// across markdown list items. Each is redacted before the write, so git never holds it (`git log -p`
// over every ref and every object are searched); ordinary text of the same shapes is left alone.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../server/src/core/scan/redact.js';
import { call, connectForSuite, type Connected } from '../mcp/helpers.js';

const TOKEN = 'ghp_Rk8fT2mLq9WzX4vB7nC1yH6jP3sD5gA0uE7w';
const TOKEN_2 = 'ghp_Vb3nM8qLz2XcK7wR4tY9pD1fG6hJ5sA0eU2k';
const HF = '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';
const PGPASS = 'N7vq2LmX9pRt';

const CASES: Record<string, { text: string; pieces: string[] }> = {
  pgpass: {
    text: `Add to ~/.pgpass:\n\ndb.internal.corp:5432:billing:deploy:${PGPASS}\n`,
    pieces: [PGPASS],
  },
  'pgpass echoed, any host': {
    text: `echo "*:*:*:postgres:${PGPASS}x" >> ~/.pgpass && chmod 600 ~/.pgpass`,
    pieces: [`${PGPASS}x`],
  },
  'a password variable': {
    text: `PGPASSWORD=${PGPASS.slice(0, 8)}$q psql -h db.internal -U deploy billing`,
    pieces: [`${PGPASS.slice(0, 8)}$q`],
  },
  'base64 in a command': {
    text: `export GITHUB_TOKEN=$(echo ${Buffer.from(TOKEN).toString('base64')} | base64 -d)`,
    pieces: [Buffer.from(TOKEN).toString('base64')],
  },
  'split by spaces': {
    text: `The CI token is ${TOKEN_2.slice(0, 15)} ${TOKEN_2.slice(15, 27)} ${TOKEN_2.slice(27)} (spaced out).`,
    pieces: [TOKEN_2.slice(0, 15), TOKEN_2.slice(15, 27), TOKEN_2.slice(27)],
  },
  'split across list items': {
    text: `Model download token, in parts:\n\n- ${HF.slice(0, 18)}\n- ${HF.slice(18)}\n\nJoin them.`,
    pieces: [HF.slice(0, 18), HF.slice(18)],
  },
};

describe('the secret rules read what they missed', () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(`redacts ${name}`, () => {
      const { text, redactions } = redactSecrets(c.text);
      expect(redactions.length).toBeGreaterThan(0);
      for (const piece of c.pieces) expect(text).not.toContain(piece);
    });
  }

  it('leaves ordinary text of the same shapes alone', () => {
    const benign = [
      'Meeting at 10:30:45 on the third floor; the clock read 12:00:00:00:00.',
      'The MAC address is 00:1a:2b:3c:4d:5e and the service runs at db.internal:5432.',
      '`*:*:*:postgres:postgres` is the dev default in docker-compose; use $PGPASSWORD elsewhere.',
      'jdbc:postgresql://db.internal:5432/billing?user=deploy',
      'root:x:0:0:root:/root:/bin/bash',
      'PGPASSWORD=$DB_PASS psql; PASSWORD=changeme; cd $PWD; OLDPWD=/tmp/build',
      'The archive hash is 3q2+7w== and the commit 9fceb02d0ae598e95dc970b74767f19372d61af8.',
      `echo ${Buffer.from('hello world, this is a plain sentence').toString('base64')} | base64 -d`,
      'GitHub tokens start with ghp_ followed by 36 characters; gh pr list shows them.',
      `A whole token ${TOKEN} is followed by words that stay.`,
      '- ghp_ is the prefix\n- and hf_ another one',
      'Tokens look like ghp_ followed by thirty six random letters and digits in a row, always.',
      'Keys read AKIA FOLLOWED BY SIXTEEN CAPITALS AND DIGITS here.',
    ];
    for (const text of benign) {
      const { text: out } = redactSecrets(text);
      if (text.includes(TOKEN)) expect(out).toBe(text.replace(TOKEN, '[redacted: github-token]'));
      else expect(out).toBe(text);
    }
  });
});

describe('through memory_store: git never holds them', () => {
  let store: string;
  let conn: Connected;
  connectForSuite((s, c) => ((store = s), (conn = c)));

  it('every case is redacted before the commit', async () => {
    for (const [name, c] of Object.entries(CASES)) {
      const stored = await call(conn.client, 'memory_store', {
        topic: `Deploy credentials note (${name})`,
        context: `The billing deploy needs this.\n\n${c.text}`,
        confidence: 0.9,
      });
      expect(stored.isError).toBe(false);
      expect(stored.json.redacted.length).toBeGreaterThan(0);
    }
    const log = execFileSync('git', ['log', '-p', '--all'], { cwd: store, encoding: 'utf8' });
    const objects = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
      cwd: store,
      maxBuffer: 1 << 28,
    }).toString('latin1');
    expect(log).toContain('[redacted: ');
    for (const c of Object.values(CASES)) {
      for (const piece of c.pieces) {
        expect(log).not.toContain(piece);
        expect(objects).not.toContain(piece);
      }
    }
  });
});
