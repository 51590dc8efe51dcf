// A raw git tree object with an offset table, so lookups are binary searches over the original
// bytes and an edit copies unchanged runs of entries instead of re-serialising every entry.
// Entry: "<mode> <name>\0<20-byte oid>". Order: bytewise by name, a tree's name compared as "name/".

export const TREE_MODE = '40000';
export const FILE_MODE = '100644';
const SLASH = 0x2f;

export interface TreeEntry {
  mode: string;
  name: string;
  oid: string;
}

/** One change to a single tree level: set `name` to `entry`, or remove it (entry null). */
export interface TreeEdit {
  name: string;
  entry: { mode: string; oid: string } | null;
}

/** A symbolic link's entry: its blob holds the link's target. */
export const SYMLINK_MODE = '120000';

export function isTreeMode(mode: string): boolean {
  return mode === TREE_MODE;
}

export class Tree {
  private constructor(
    readonly body: Buffer,
    private readonly starts: Uint32Array,
    private readonly nuls: Uint32Array,
  ) {}

  static readonly EMPTY = Tree.parse(Buffer.alloc(0));

  /** Index a raw tree body. */
  static parse(body: Buffer): Tree {
    const startList: number[] = [];
    const nulList: number[] = [];
    let pos = 0;
    while (pos < body.length) {
      const nul = body.indexOf(0, pos);
      if (nul < 0 || nul + 21 > body.length) throw new Error('corrupt tree object');
      startList.push(pos);
      nulList.push(nul);
      pos = nul + 21;
    }
    return new Tree(body, Uint32Array.from(startList), Uint32Array.from(nulList));
  }

  get size(): number {
    return this.starts.length;
  }

  private nameStart(i: number): number {
    return this.body.indexOf(0x20, this.starts[i]) + 1;
  }

  private isTreeAt(i: number): boolean {
    // Only the tree mode "40000" starts with '4' and has 5 digits.
    const s = this.starts[i];
    return this.body[s] === 0x34 && this.body[s + 5] === 0x20;
  }

  entryAt(i: number): TreeEntry {
    const nameStart = this.nameStart(i);
    const nul = this.nuls[i];
    return {
      mode: this.body.toString('latin1', this.starts[i], nameStart - 1),
      name: this.body.toString('utf8', nameStart, nul),
      oid: this.body.toString('hex', nul + 1, nul + 21),
    };
  }

  entries(): TreeEntry[] {
    const out: TreeEntry[] = [];
    for (let i = 0; i < this.size; i++) out.push(this.entryAt(i));
    return out;
  }

  /** Whether entry i here and entry j of `other` are the same bytes (mode, name and oid). */
  sameEntry(i: number, other: Tree, j: number): boolean {
    const end = this.nuls[i] + 21;
    const otherEnd = other.nuls[j] + 21;
    return (
      end - this.starts[i] === otherEnd - other.starts[j] &&
      this.body.compare(other.body, other.starts[j], otherEnd, this.starts[i], end) === 0
    );
  }

  /** Entry i here against entry j of `other`, in git's tree order (a tree's name as "name/"). */
  compareEntries(i: number, other: Tree, j: number): number {
    const aStart = this.nameStart(i);
    const aLen = this.nuls[i] - aStart;
    const bStart = other.nameStart(j);
    const bLen = other.nuls[j] - bStart;
    const len = Math.min(aLen, bLen);
    const c = this.body.compare(other.body, bStart, bStart + len, aStart, aStart + len);
    if (c !== 0) return c;
    const c1 = aLen > len ? this.body[aStart + len] : this.isTreeAt(i) ? SLASH : 0;
    const c2 = bLen > len ? other.body[bStart + len] : other.isTreeAt(j) ? SLASH : 0;
    return c1 - c2;
  }

  /** Compare entry i with (name, isDir) in git's tree order. */
  private compareAt(i: number, name: Buffer, isDir: boolean): number {
    const aStart = this.nameStart(i);
    const aLen = this.nuls[i] - aStart;
    const len = Math.min(aLen, name.length);
    const c = this.body.compare(name, 0, len, aStart, aStart + len);
    if (c !== 0) return c;
    const c1 = aLen > len ? this.body[aStart + len] : this.isTreeAt(i) ? SLASH : 0;
    const c2 = name.length > len ? name[len] : isDir ? SLASH : 0;
    return c1 - c2;
  }

  /** First index whose key is >= (name, isDir). */
  private lowerBound(name: Buffer, isDir: boolean): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareAt(mid, name, isDir) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private indexOf(name: Buffer, isDir: boolean): number {
    const i = this.lowerBound(name, isDir);
    return i < this.size && this.compareAt(i, name, isDir) === 0 ? i : -1;
  }

  /** The entry called `name`, blob or tree; null if absent. */
  find(name: string): TreeEntry | null {
    const bytes = Buffer.from(name);
    const asFile = this.indexOf(bytes, false);
    if (asFile >= 0) return this.entryAt(asFile);
    const asDir = this.indexOf(bytes, true);
    return asDir >= 0 ? this.entryAt(asDir) : null;
  }

  /**
   * A new tree with `edits` applied (each name at most once). A set replaces any entry of that
   * name, whatever its type; a removal of an absent name is a no-op.
   */
  splice(edits: TreeEdit[]): Tree {
    const removed: number[] = [];
    const inserts: { pos: number; name: Buffer; isDir: boolean; bytes: Buffer }[] = [];
    for (const edit of edits) {
      const name = Buffer.from(edit.name);
      for (const isDir of [false, true]) {
        const i = this.indexOf(name, isDir);
        if (i >= 0) removed.push(i);
      }
      if (edit.entry) {
        const isDir = isTreeMode(edit.entry.mode);
        const bytes = Buffer.concat([
          Buffer.from(`${edit.entry.mode} `),
          name,
          Buffer.from([0]),
          Buffer.from(edit.entry.oid, 'hex'),
        ]);
        inserts.push({ pos: this.lowerBound(name, isDir), name, isDir, bytes });
      }
    }
    removed.sort((a, b) => a - b);
    inserts.sort((a, b) => a.pos - b.pos || compareKeys(a.name, a.isDir, b.name, b.isDir));

    const pieces: Buffer[] = [];
    let r = 0;
    const copyEntries = (from: number, to: number) => {
      // Copy entries [from, to) except removed ones, as few contiguous slices as possible.
      let run = from;
      while (r < removed.length && removed[r] < to) {
        const skip = removed[r++];
        if (skip < run) continue;
        if (skip > run) pieces.push(this.slice(run, skip));
        run = skip + 1;
      }
      if (to > run) pieces.push(this.slice(run, to));
    };
    let cursor = 0;
    for (const ins of inserts) {
      copyEntries(cursor, ins.pos);
      cursor = Math.max(cursor, ins.pos);
      pieces.push(ins.bytes);
    }
    copyEntries(cursor, this.size);
    return Tree.parse(Buffer.concat(pieces));
  }

  private slice(from: number, to: number): Buffer {
    const end = to < this.size ? this.starts[to] : this.body.length;
    return this.body.subarray(this.starts[from], end);
  }
}

function compareKeys(a: Buffer, aDir: boolean, b: Buffer, bDir: boolean): number {
  const len = Math.min(a.length, b.length);
  const c = a.compare(b, 0, len, 0, len);
  if (c !== 0) return c;
  const c1 = a.length > len ? a[len] : aDir ? SLASH : 0;
  const c2 = b.length > len ? b[len] : bDir ? SLASH : 0;
  return c1 - c2;
}
