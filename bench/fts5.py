"""The reference for bench:search: SQLite FTS5 (Python's sqlite3) over the same store files.

  python3 bench/fts5.py build STORE DB     index memories/*.md and MEMORY.md (title, tags, text)
  python3 bench/fts5.py query DB QUERY     the best 6 files by bm25 with a snippet, as JSON
  python3 bench/fts5.py queries DB FILE    every line of FILE as a query; per-query ms as JSON

The text is what Cairn indexes: the body without front matter, the title and tags as fields.
"""
import json
import os
import re
import sqlite3
import sys
import time

FRONT = re.compile(r"^---\n(.*?)\n---\n", re.S)


def fields(text):
    m = FRONT.match(text)
    meta, body = (m.group(1), text[m.end():]) if m else ("", text)
    title = re.search(r"^title:\s*(.*)$", meta, re.M)
    tags = re.search(r"^tags:\s*\[(.*)\]$", meta, re.M)
    return (title.group(1).strip('"') if title else ""), (tags.group(1) if tags else ""), body


def build(store, db):
    if os.path.exists(db):
        os.remove(db)
    con = sqlite3.connect(db)
    con.execute("CREATE VIRTUAL TABLE docs USING fts5(path UNINDEXED, title, tags, text, tokenize='porter')")
    rows = []
    names = ["MEMORY.md"] + ["memories/" + n for n in sorted(os.listdir(os.path.join(store, "memories")))]
    for rel in names:
        p = os.path.join(store, rel)
        if not rel.endswith(".md") or not os.path.isfile(p):
            continue
        with open(p, encoding="utf8") as f:
            title, tags, body = fields(f.read())
        rows.append((rel, title, tags, body))
    con.executemany("INSERT INTO docs (path, title, tags, text) VALUES (?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    return len(rows)


def match(query):
    words = [w for w in re.split(r"\W+", query) if w]
    return " OR ".join('"%s"' % w for w in words)


def search(con, query):
    sql = (
        "SELECT path, bm25(docs) AS s, snippet(docs, 3, '', '', '...', 40) FROM docs "
        "WHERE docs MATCH ? ORDER BY s LIMIT 6"
    )
    q = match(query)
    return con.execute(sql, (q,)).fetchall() if q else []


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "build":
        n = build(sys.argv[2], sys.argv[3])
        print(json.dumps({"files": n}))
    elif cmd == "query":
        con = sqlite3.connect(sys.argv[2])
        rows = search(con, sys.argv[3])
        print(json.dumps([{"path": r[0], "score": r[1], "snippet": r[2]} for r in rows]))
    elif cmd == "queries":
        con = sqlite3.connect(sys.argv[2])
        times = []
        with open(sys.argv[3], encoding="utf8") as f:
            for line in f.read().split("\n"):
                if not line:
                    continue
                t = time.perf_counter()
                search(con, line)
                times.append((time.perf_counter() - t) * 1000)
        print(json.dumps(times))
