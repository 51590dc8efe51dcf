// The SQLite FTS5 baseline for bench/search.mjs: the same chunks in one FTS5 table.
import Database from 'better-sqlite3';
import { rmSync, statSync } from 'node:fs';

/** Builds `<file>` from chunks; returns the open database and helpers. */
export function buildFts(file, chunks) {
  rmSync(file, { force: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec("CREATE VIRTUAL TABLE chunks USING fts5(path UNINDEXED, title, tags, text, tokenize='porter')");
  const insert = db.prepare('INSERT INTO chunks (path, title, tags, text) VALUES (?, ?, ?, ?)');
  const insertAll = db.transaction((rows) => {
    for (const c of rows) insert.run(c.path, c.meta.title, c.meta.tags.join(' '), c.text);
  });
  insertAll(chunks);
  const del = db.prepare('DELETE FROM chunks WHERE path = ?');
  const query = db.prepare(
    'SELECT path, bm25(chunks) AS s FROM chunks WHERE chunks MATCH ? ORDER BY s LIMIT 6',
  );
  return {
    db,
    size: () => statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0),
    search: (q) =>
      query.all(
        q
          .split(/\W+/)
          .filter(Boolean)
          .map((w) => `"${w}"`)
          .join(' OR '),
      ),
    reindex: db.transaction((path, rows) => {
      del.run(path);
      insertAll(rows);
    }),
  };
}
