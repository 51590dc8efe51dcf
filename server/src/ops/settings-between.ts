// What cairn.yaml's settings did between two commits: the one reading behind review (a candidate's
// branch against main) and sync (what the remote's main brings in).
import { parseConfig } from '../core/config.js';
import { settingsChanges, type SettingChange } from '../core/settings-changes.js';
import { injectionDetector } from '../store/injection-model.js';
import { CONFIG_FILE, repoPath, type Store } from '../store/store.js';

/** The settings whose effective value differs from `from` to `to` (a missing file is all defaults). */
export async function settingsBetween(store: Store, from: string, to: string): Promise<SettingChange[]> {
  const at = async (commit: string) =>
    parseConfig((await store.repo.readText(commit, repoPath(store, CONFIG_FILE))) ?? '').config;
  return settingsChanges(await at(from), await at(to), injectionDetector()?.model.header.threshold ?? null);
}
