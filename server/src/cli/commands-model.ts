// `cairn model status|pull|import`: the local embedding model. Only `pull` touches the network,
// and it says so before it starts.
import path from 'node:path';
import {
  configuredModel as storeModel,
  importModel,
  modelCacheDir,
  modelStatus,
  pullModel,
} from '../ops/models.js';
import { str, type Command, type CommandArgs } from './command.js';
import { EXIT, UsageError, writeJson, writeLine, type CliIO } from './io.js';

async function configuredModel(
  args: CommandArgs,
  io: CliIO,
): Promise<{ modelId: string; dtype: 'q8' | 'fp32' }> {
  const model = storeModel({ store: str(args, 'store'), env: io.env, cwd: io.cwd });
  const dtype = str(args, 'dtype');
  if (dtype && dtype !== 'q8' && dtype !== 'fp32') throw new UsageError('--dtype is q8 or fp32');
  return { modelId: str(args, 'model') ?? model.modelId, dtype: (dtype as 'q8' | 'fp32') ?? model.dtype };
}

function formatBytes(n: number): string {
  return n > 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${(n / 1e3).toFixed(0)} KB`;
}

export const modelCommand: Command = {
  name: 'model',
  summary: 'The local embedding model: status, pull (download once), import DIR (offline)',
  usage:
    'cairn model status | cairn model pull | cairn model import DIR   [--model ID] [--dtype q8|fp32] [--models-dir DIR]\n' +
    '  Models live in --models-dir, else $CAIRN_MODELS_DIR, else $XDG_CACHE_HOME/cairn/models, else\n' +
    '  ~/.cache/cairn/models.\n' +
    '  pull downloads from --remote-host URL, else $CAIRN_REMOTE_HOST (default https://huggingface.co);\n' +
    '  search itself never does.',
  options: {
    model: { type: 'string' },
    dtype: { type: 'string' },
    'models-dir': { type: 'string' },
    'remote-host': { type: 'string' },
  },
  async run(args, io) {
    const [sub, dir] = args.positionals;
    const { modelId, dtype } = await configuredModel(args, io);
    const cacheDir = str(args, 'models-dir')
      ? path.resolve(io.cwd, str(args, 'models-dir')!)
      : await modelCacheDir(io.env);
    if (sub === 'status' || sub === undefined) {
      const s = await modelStatus({ modelId, cacheDir, dtype });
      if (args.json) writeJson(io, { ...s, cacheDir, vector_enabled: s.installed });
      else if (s.installed) {
        writeLine(
          io,
          `${modelId}: installed (${s.dtype}, ${formatBytes(s.sizeBytes)}, ${s.source}) in ${s.path}`,
        );
        if (s.problem) writeLine(io, `  note: ${s.problem}`);
        writeLine(io, '  search: hybrid (keyword + vectors), offline');
      } else {
        writeLine(io, `${modelId}: not installed${s.problem ? ` (${s.problem})` : ''}`);
        writeLine(io, '  search: keyword only (vector_enabled: false)');
        writeLine(
          io,
          `  install: cairn model pull   (downloads once)   or   cairn model import DIR   (offline)`,
        );
      }
      return EXIT.OK;
    }
    if (sub === 'import') {
      if (!dir) throw new UsageError('model import needs a folder: cairn model import DIR');
      // The folder's own id unless --model names one (refused when the folder says otherwise).
      const s = await importModel({
        from: path.resolve(io.cwd, dir),
        modelId: str(args, 'model'),
        configuredId: modelId,
        cacheDir,
      });
      if (args.json) writeJson(io, { success: true, ...s, configuredModel: modelId });
      else {
        writeLine(io, `imported ${s.modelId} (${s.dtype}, ${formatBytes(s.sizeBytes)}) into ${s.path}`);
        if (s.modelId !== modelId) {
          writeLine(
            io,
            `  search uses ${modelId}; to use this one, set search.model: ${s.modelId} in cairn.yaml`,
          );
        }
      }
      return EXIT.OK;
    }
    if (sub === 'pull') {
      const remoteHost = str(args, 'remote-host') ?? io.env.CAIRN_REMOTE_HOST;
      io.stderr.write(
        `cairn: downloading ${modelId} (${dtype}) from ${remoteHost ?? 'https://huggingface.co'} once; search never uses the network\n`,
      );
      let lastFile = '';
      const s = await pullModel({
        modelId,
        cacheDir,
        dtype,
        remoteHost,
        onProgress: (p) => {
          if (!io.stderrIsTTY) return;
          if (p.file !== lastFile && lastFile) io.stderr.write('\n');
          lastFile = p.file;
          const pct = p.total ? ` ${((p.loaded / p.total) * 100).toFixed(0)}%` : '';
          io.stderr.write(
            `\r  ${p.file} ${formatBytes(p.loaded)}${p.total ? ` / ${formatBytes(p.total)}` : ''}${pct}   `,
          );
        },
      });
      if (io.stderrIsTTY && lastFile) io.stderr.write('\n');
      if (args.json) writeJson(io, { success: true, ...s });
      else writeLine(io, `installed ${modelId} (${s.dtype}, ${formatBytes(s.sizeBytes)}) in ${s.path}`);
      return EXIT.OK;
    }
    throw new UsageError(`unknown model subcommand "${sub}"; use status, pull or import DIR`);
  },
};
