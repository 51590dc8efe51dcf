// Reading objects from git packfiles (idx v2) without loading the whole pack: a binary search in
// the .idx, then positioned reads of the .pack entry and its delta bases. Every object read is
// checked against its oid, so a bug here can only cost a fallback, never a wrong answer.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inflateSync } from 'node:zlib';
import { hashObject, type GitObject, type ObjectType } from './object-id.js';

const TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;

class PackIndex {
  private constructor(
    readonly packPath: string,
    private readonly idx: Buffer,
    private readonly count: number,
  ) {}

  private descriptor: number | null = null;

  /** An open descriptor of the .pack; it stays valid even if `git gc` deletes the file meanwhile. */
  fd(): number {
    this.descriptor ??= fs.openSync(this.packPath, 'r');
    return this.descriptor;
  }

  close(): void {
    if (this.descriptor !== null) fs.closeSync(this.descriptor);
    this.descriptor = null;
  }

  static load(idxPath: string): PackIndex | null {
    const idx = fs.readFileSync(idxPath);
    if (idx.readUInt32BE(0) !== 0xff744f63 || idx.readUInt32BE(4) !== 2) return null; // only v2
    return new PackIndex(idxPath.replace(/\.idx$/, '.pack'), idx, idx.readUInt32BE(8 + 255 * 4));
  }

  /** Offset of `oid` in the pack, or -1. */
  offsetOf(oid: Buffer): number {
    const first = oid[0];
    let lo = first === 0 ? 0 : this.idx.readUInt32BE(8 + (first - 1) * 4);
    let hi = this.idx.readUInt32BE(8 + first * 4);
    const shaBase = 8 + 256 * 4;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.idx.compare(oid, 0, 20, shaBase + mid * 20, shaBase + mid * 20 + 20);
      if (c === 0) {
        const offBase = shaBase + this.count * 24; // after shas (20) and crcs (4)
        const off = this.idx.readUInt32BE(offBase + mid * 4);
        if (!(off & 0x80000000)) return off;
        const large = offBase + this.count * 4 + (off & 0x7fffffff) * 8;
        return Number(this.idx.readBigUInt64BE(large));
      }
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return -1;
  }
}

export class PackReader {
  private packs: PackIndex[] | null = null;

  constructor(private readonly gitdir: string) {}

  private loadPacks(): PackIndex[] {
    const dir = path.join(this.gitdir, 'objects', 'pack');
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir).filter((n) => n.endsWith('.idx'));
    } catch {
      // no packs
    }
    return names.map((n) => PackIndex.load(path.join(dir, n))).filter((p): p is PackIndex => p !== null);
  }

  /** True when a pack we know of lists `oid` (no I/O once the indexes are loaded). */
  has(oid: string): boolean {
    this.packs ??= this.loadPacks();
    const key = Buffer.from(oid, 'hex');
    return this.packs.some((p) => p.offsetOf(key) >= 0);
  }

  /**
   * The object when a pack we know of lists it; undefined when none does (without looking for new
   * packs: the caller tries loose objects first), null when listed but unreadable. One lookup:
   * `has` then `read` searched every index twice per object.
   */
  readListed(oid: string): GitObject | null | undefined {
    this.packs ??= this.loadPacks();
    const key = Buffer.from(oid, 'hex');
    for (const pack of this.packs) {
      const offset = pack.offsetOf(key);
      if (offset >= 0) return this.readVerified(pack, offset, oid);
    }
    return undefined;
  }

  /**
   * The object, or null when no pack has it (or it could not be read and verified). Reads are
   * synchronous on a file descriptor kept open per pack: objects are small, and a round trip
   * through the thread pool per read made listing 10,000 memories take seconds.
   */
  async read(oid: string): Promise<GitObject | null> {
    const key = Buffer.from(oid, 'hex');
    for (let pass = 0; pass < 2; pass++) {
      // A pack written since we listed them (git gc, fetch) shows up on the second pass.
      if (pass === 1 || !this.packs) {
        this.packs?.forEach((p) => p.close());
        this.packs = this.loadPacks();
      }
      for (const pack of this.packs) {
        const offset = pack.offsetOf(key);
        if (offset >= 0) return this.readVerified(pack, offset, oid);
      }
    }
    return null;
  }

  private readVerified(pack: PackIndex, offset: number, oid: string): GitObject | null {
    try {
      const obj = this.readAt(pack.fd(), pack, offset, 0);
      return obj && hashObject(obj.type, obj.body) === oid ? obj : null;
    } catch {
      return null;
    }
  }

  private readAt(fd: number, pack: PackIndex, offset: number, depth: number): GitObject | null {
    if (depth > 60) return null;
    // One read for the header and, for a small object, its data too (every byte used is read first).
    const head = Buffer.allocUnsafe(WINDOW);
    const bytesRead = fs.readSync(fd, head, 0, WINDOW, offset);
    let pos = 0;
    let c = head[pos++];
    const type = (c >> 4) & 7;
    let size = c & 15;
    let shift = 4;
    while (c & 0x80) {
      c = head[pos++];
      size += (c & 0x7f) * 2 ** shift;
      shift += 7;
    }
    let base: GitObject | null = null;
    if (type === OFS_DELTA) {
      c = head[pos++];
      let back = c & 127;
      while (c & 128) {
        c = head[pos++];
        back = (back + 1) * 128 + (c & 127);
      }
      base = this.readAt(fd, pack, offset - back, depth + 1);
    } else if (type === REF_DELTA) {
      const baseOid = head.subarray(pos, pos + 20);
      pos += 20;
      const baseOffset = pack.offsetOf(baseOid);
      base = baseOffset < 0 ? null : this.readAt(fd, pack, baseOffset, depth + 1);
    } else if (!TYPES[type]) {
      return null;
    }
    if (pos > bytesRead) return null;
    const data =
      compressedBound(size) <= bytesRead - pos
        ? inflateSync(head.subarray(pos, bytesRead))
        : inflateAt(fd, offset + pos, size);
    if (data.length !== size) throw new Error('pack entry size mismatch');
    if (type === OFS_DELTA || type === REF_DELTA)
      return base ? { type: base.type, body: applyDelta(base.body, data) } : null;
    return { type: TYPES[type], body: data };
  }
}

/**
 * Bytes read at an entry's start: its header and, for most memory files, all of its data (a
 * second read per object was a fifth of reading 10,000 blobs). Under 4 KB, Buffer's pool serves it.
 */
const WINDOW = 4000;

/** Compressed data is at most a little larger than its output. */
const compressedBound = (size: number) => size + 64 + (size >> 6);

/** Inflate the zlib stream at `position` whose output is `size` bytes. */
function inflateAt(fd: number, position: number, size: number): Buffer {
  // Retry bigger if the bound cut it short.
  for (let guess = compressedBound(size); ; guess *= 2) {
    const buf = Buffer.allocUnsafe(guess); // only the bytes read are inflated
    const bytesRead = fs.readSync(fd, buf, 0, guess, position);
    try {
      const out = inflateSync(buf.subarray(0, bytesRead));
      if (out.length === size) return out;
    } catch (err) {
      if (bytesRead < guess) throw err;
      continue;
    }
    if (bytesRead < guess) throw new Error('pack entry size mismatch');
  }
}

/** Apply a git delta (copy/insert instructions) to `base`. */
function applyDelta(base: Buffer, delta: Buffer): Buffer {
  let pos = 0;
  const varint = () => {
    let v = 0;
    let shift = 0;
    let c: number;
    do {
      c = delta[pos++];
      v += (c & 0x7f) * 2 ** shift;
      shift += 7;
    } while (c & 0x80);
    return v;
  };
  if (varint() !== base.length) throw new Error('delta base size mismatch');
  const out = Buffer.alloc(varint());
  let o = 0;
  while (pos < delta.length) {
    const op = delta[pos++];
    if (op & 0x80) {
      let off = 0;
      let len = 0;
      for (let i = 0; i < 4; i++) if (op & (1 << i)) off += delta[pos++] * 2 ** (8 * i);
      for (let i = 0; i < 3; i++) if (op & (0x10 << i)) len += delta[pos++] * 2 ** (8 * i);
      if (len === 0) len = 0x10000;
      base.copy(out, o, off, off + len);
      o += len;
    } else if (op > 0) {
      delta.copy(out, o, pos, pos + op);
      o += op;
      pos += op;
    } else {
      throw new Error('bad delta opcode');
    }
  }
  if (o !== out.length) throw new Error('delta result size mismatch');
  return out;
}
