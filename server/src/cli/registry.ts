// Every CLI command, in the order `cairn help` lists them. A command's module is loaded only when
// that command runs: `cairn search` does not parse the code of review, sync, learn or the servers
// (in the bundle each group is a chunk of its own), which is most of a short command's start-up.
import type { Command } from './command.js';

export interface CommandEntry {
  name: string;
  load(): Promise<Command>;
}

const read = () => import('./commands-read.js');
const review = () => import('./commands-review.js');
const learn = () => import('./commands-learn.js');
const agent = () => import('./commands-agent.js');
const editor = () => import('./commands-editor.js');
const merge = () => import('./commands-merge.js');
const sync = () => import('./commands-sync.js');
const search = () => import('./commands-search.js');
const write = () => import('./commands-write.js');

const entry = (name: string, load: () => Promise<Command>): CommandEntry => ({ name, load });

export const COMMANDS: CommandEntry[] = [
  entry('init', async () => (await read()).initCommand),
  entry('setup', async () => (await merge()).setupCommand),
  entry('store', async () => (await write()).storeCommand),
  entry('search', async () => (await search()).searchCommand),
  entry('get', async () => (await read()).getCommand),
  entry('list', async () => (await read()).listCommand),
  entry('review', async () => (await review()).reviewCommand),
  entry('accept', async () => (await review()).acceptCommand),
  entry('reject', async () => (await review()).rejectCommand),
  entry('allow', async () => (await review()).allowCommand),
  entry('sync', async () => (await sync()).syncCommand),
  entry('propose', async () => (await sync()).proposeCommand),
  entry('supersede', async () => (await review()).supersedeCommand),
  entry('correct', async () => (await review()).correctCommand),
  entry('feedback', async () => (await review()).feedbackCommand),
  entry('forget', async () => (await review()).forgetCommand),
  entry('undo', async () => (await review()).undoCommand),
  entry('log', async () => (await read()).logCommand),
  entry('status', async () => (await read()).statusCommand),
  entry('serve', async () => (await import('./commands-serve.js')).serveCommand),
  entry('graph', async () => (await import('./commands-graph.js')).graphCommand),
  entry('import', async () => (await write()).importCommand),
  entry('import-prompt', async () => (await learn()).importPromptCommand),
  entry('learn', async () => (await learn()).learnCommand),
  entry('refresh', async () => (await learn()).refreshCommand),
  entry('consolidate', async () => (await learn()).consolidateCommand),
  entry('index', async () => (await search()).indexCommand),
  entry('model', async () => (await import('./commands-model.js')).modelCommand),
  entry('context', async () => (await agent()).contextCommand),
  entry('mcp', async () => (await agent()).mcpCommand),
  entry('lsp', async () => (await editor()).lspCommand),
  entry('check', async () => (await editor()).checkCommand),
  entry('merge-driver', async () => (await merge()).mergeDriverCommand),
];

/** The command named `name`, its module loaded; undefined when there is none. */
export async function findCommand(name: string | undefined): Promise<Command | undefined> {
  return COMMANDS.find((c) => c.name === name)?.load();
}

/** Every command, loaded (for `cairn help`), in the listed order. */
export function loadCommands(): Promise<Command[]> {
  return Promise.all(COMMANDS.map((c) => c.load()));
}
