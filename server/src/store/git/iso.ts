// isomorphic-git, loaded on first use: importing it costs ~150-200 ms, and the common paths (loose
// objects, refs, commits) never need it. Packed objects, `init` and abbreviated oids do.
type IsoGit = typeof import('isomorphic-git');

let loading: Promise<IsoGit> | null = null;

export function isoGit(): Promise<IsoGit> {
  loading ??= import('isomorphic-git');
  return loading;
}
