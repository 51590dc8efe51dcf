// Object types and ids: sha1 over "<type> <length>\0<body>".
import { createHash } from 'node:crypto';

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

export interface GitObject {
  type: ObjectType;
  body: Buffer;
}

/** The git object id of `body` as an object of `type`: sha1("<type> <len>\0" + body). */
export function hashObject(type: ObjectType, body: Uint8Array): string {
  return createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex');
}
