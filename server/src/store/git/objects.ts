// Reading and writing git objects. Writes go straight to loose object files (hash with node:crypto,
// deflate with node:zlib, temp file + rename); reads try the loose file first and fall back to
// isomorphic-git for packed objects. Parsed trees are cached by oid: a 10,000-entry tree costs
// ~0.5 MB to inflate, and the next commit almost always starts from the tree the last one wrote.
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { deflateSync, inflateSync, constants as zlibConstants } from 'node:zlib';
import * as git from 'isomorphic-git';
import { CairnError } from '../../core/errors.js';
import { Tree } from './tree.js';

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

export interface GitObject {
  type: ObjectType;
  body: Buffer;
}

/** The git object id of `body` as an object of `type`: sha1("<type> <len>\0" + body). */
export function hashObject(type: ObjectType, body: Uint8Array): string {
  return createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex');
}

const TREE_CACHE_BYTES = 48 * 1024 * 1024;

export class ObjectStore {
  /** Shared with isomorphic-git so pack indexes are parsed once. */
  readonly isoCache: object = {};
  private readonly trees = new Map<string, Tree>();
  private treeBytes = 0;

  constructor(
    readonly gitdir: string,
    private readonly compression = zlibConstants.Z_DEFAULT_COMPRESSION,
  ) {}

  private loosePath(oid: string): string {
    return path.join(this.gitdir, 'objects', oid.slice(0, 2), oid.slice(2));
  }

  /** Store an object as a loose file unless it already exists; returns its oid. */
  async write(type: ObjectType, body: Uint8Array): Promise<string> {
    const oid = hashObject(type, body);
    const file = this.loosePath(oid);
    if (fs.existsSync(file)) return oid;
    const header = Buffer.from(`${type} ${body.length}\0`);
    const deflated = deflateSync(Buffer.concat([header, body]), { level: this.compression });
    await fsp.mkdir(path.dirname(file), { recursive: true });
    const tmp = path.join(path.dirname(file), `tmp_obj_${process.pid}_${randomBytes(4).toString('hex')}`);
    await fsp.writeFile(tmp, deflated, { flag: 'wx', mode: 0o444 });
    try {
      await fsp.rename(tmp, file);
    } catch (err) {
      await fsp.rm(tmp, { force: true });
      throw err;
    }
    return oid;
  }

  /** Store a tree and remember its parsed form for the next commit. */
  async writeTree(tree: Tree): Promise<string> {
    const oid = await this.write('tree', tree.body);
    this.remember(oid, tree);
    return oid;
  }

  /** Read any object; null when it does not exist. */
  async read(oid: string): Promise<GitObject | null> {
    if (!/^[0-9a-f]{40}$/.test(oid)) return null;
    let raw: Buffer | null = null;
    try {
      raw = await fsp.readFile(this.loosePath(oid));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (raw) return parseLoose(oid, inflateSync(raw));
    try {
      const result = await git.readObject({ fs, gitdir: this.gitdir, oid, format: 'content', cache: this.isoCache });
      return { type: result.type as ObjectType, body: Buffer.from(result.object as Uint8Array) };
    } catch (err) {
      if ((err as { code?: string }).code === 'NotFoundError') return null;
      throw err;
    }
  }

  /** Read an object that must exist and have the given type. */
  async readAs(oid: string, type: ObjectType): Promise<Buffer> {
    const obj = await this.read(oid);
    if (!obj) throw new CairnError('NOT_FOUND', `git object ${oid} is missing; run \`git fsck\``, { oid });
    if (obj.type !== type) {
      throw new CairnError('INTERNAL', `git object ${oid} is a ${obj.type}, expected a ${type}`, { oid });
    }
    return obj.body;
  }

  /** A parsed tree, from the cache when possible. */
  async readTree(oid: string): Promise<Tree> {
    const cached = this.trees.get(oid);
    if (cached) {
      this.trees.delete(oid); // move to the most-recent end
      this.trees.set(oid, cached);
      return cached;
    }
    const tree = Tree.parse(await this.readAs(oid, 'tree'));
    this.remember(oid, tree);
    return tree;
  }

  private remember(oid: string, tree: Tree): void {
    if (this.trees.has(oid)) return;
    this.trees.set(oid, tree);
    this.treeBytes += tree.body.length;
    for (const [old, t] of this.trees) {
      if (this.treeBytes <= TREE_CACHE_BYTES || this.trees.size <= 1) break;
      this.trees.delete(old);
      this.treeBytes -= t.body.length;
    }
  }
}

function parseLoose(oid: string, data: Buffer): GitObject {
  const nul = data.indexOf(0);
  const header = data.subarray(0, nul).toString('latin1');
  const space = header.indexOf(' ');
  const type = header.slice(0, space) as ObjectType;
  const size = Number(header.slice(space + 1));
  const body = data.subarray(nul + 1);
  if (nul < 0 || body.length !== size) {
    throw new CairnError('INTERNAL', `loose object ${oid} is corrupt; run \`git fsck\``, { oid });
  }
  return { type, body };
}
