// cairn graph: a static picture of the knowledge graph (mermaid, DOT or SVG) for READMEs, pull
// requests and docs. The picture comes from ops/graph.ts graphPicture, the same call the review
// page and the language server use; drawing is core/graph-draw.
import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { drawGraph, GRAPH_FORMATS, type GraphFormat } from '../core/graph-draw/index.js';
import { sampleNote } from '../core/graph-draw/text.js';
import type { MemoryStatus } from '../core/types.js';
import { graphPicture } from '../ops/graph-picture.js';
import { num, str, strs, type Command } from './command.js';
import { EXIT, UsageError, writeJson, writeText } from './io.js';

// GitHub renders a mermaid chart of at most 500 edges and 50,000 characters: a smaller default
// cap keeps a pasted chart drawable; SVG and DOT take more.
const DEFAULT_MAX_NODES: Record<GraphFormat, number> = { mermaid: 120, dot: 400, svg: 400 };

export const graphCommand: Command = {
  name: 'graph',
  summary: 'Draw the knowledge graph as SVG, mermaid or DOT',
  usage:
    'cairn graph [--format mermaid|svg|dot] [--as-of DATE] [--entity E [--depth N]] [--predicate P] ' +
    '[--status S]... [--hide-outside] [--max-nodes N] [--out FILE]',
  needsStore: true,
  options: {
    format: { type: 'string' },
    'as-of': { type: 'string' },
    entity: { type: 'string' },
    depth: { type: 'string' },
    predicate: { type: 'string' },
    status: { type: 'string', multiple: true },
    'hide-outside': { type: 'boolean' },
    'max-nodes': { type: 'string' },
    out: { type: 'string' },
  },
  async run(args, io, open) {
    const format = (str(args, 'format') ?? 'mermaid') as GraphFormat;
    if (!GRAPH_FORMATS.includes(format))
      throw new UsageError(`--format ${format} is not a format; use ${GRAPH_FORMATS.join(', ')}`);
    const status = strs(args, 'status').flatMap((s) => s.split(',')) as MemoryStatus[];
    const out = str(args, 'out');
    if (out !== undefined) await checkOut(path.resolve(io.cwd, out));
    const ctx = await open();
    // A day, not an instant: a picture drawn twice on one day is the same file.
    const today = ctx.now().toISOString().slice(0, 10);
    const picture = await graphPicture(ctx, {
      asOf: str(args, 'as-of') ?? today,
      entity: str(args, 'entity'),
      depth: num(args, 'depth'),
      predicate: str(args, 'predicate'),
      status: status.length ? status : undefined,
      hideOutside: Boolean(args.values['hide-outside']),
      maxNodes: num(args, 'max-nodes') ?? DEFAULT_MAX_NODES[format],
    });
    const drawing = drawGraph(picture, format);
    const summary = {
      sampled: picture.sampled,
      shown: picture.shown,
      total: picture.total,
      asOf: picture.asOf,
    };
    if (out) {
      const file = path.resolve(io.cwd, out);
      await writeFile(file, drawing);
      if (args.json) writeJson(io, { success: true, format, out: file, ...summary });
      else
        writeText(
          io,
          `Wrote ${format} of ${picture.shown.nodes} nodes and ${picture.shown.edges} edges to ${file}\n`,
          'stderr',
        );
    } else if (args.json) writeJson(io, { format, ...picture });
    else writeText(io, drawing);
    const note = sampleNote(picture);
    if (note && !args.json) writeText(io, `cairn: ${note}\n`, 'stderr');
    return EXIT.OK;
  },
};

/** `--out FILE` names a file in a folder that exists: checked before any work, as a usage error. */
async function checkOut(file: string): Promise<void> {
  if ((await stat(file).catch(() => null))?.isDirectory())
    throw new UsageError(`--out ${file} is a folder; name a file in it`);
  const dir = path.dirname(file);
  const info = await stat(dir).catch(() => null);
  if (!info) throw new UsageError(`--out ${file}: no such folder ${dir}`);
  if (!info.isDirectory()) throw new UsageError(`--out ${file}: ${dir} is not a folder`);
}
