// Every CLI command, in the order `cairn help` lists them.
import type { Command } from './command.js';
import { graphCommand } from './commands-graph.js';
import { modelCommand } from './commands-model.js';
import { consolidateCommand, importPromptCommand, learnCommand, refreshCommand } from './commands-learn.js';
import { contextCommand, mcpCommand } from './commands-agent.js';
import { checkCommand, lspCommand } from './commands-editor.js';
import { indexCommand, searchCommand } from './commands-search.js';
import { importCommand, storeCommand } from './commands-write.js';
import { mergeDriverCommand, setupCommand } from './commands-merge.js';
import { proposeCommand, syncCommand } from './commands-sync.js';
import { serveCommand } from './commands-serve.js';
import { getCommand, initCommand, listCommand, logCommand, statusCommand } from './commands-read.js';
import {
  acceptCommand,
  allowCommand,
  correctCommand,
  feedbackCommand,
  forgetCommand,
  rejectCommand,
  reviewCommand,
  supersedeCommand,
  undoCommand,
} from './commands-review.js';

export const COMMANDS: Command[] = [
  initCommand,
  setupCommand,
  storeCommand,
  searchCommand,
  getCommand,
  listCommand,
  reviewCommand,
  acceptCommand,
  rejectCommand,
  allowCommand,
  syncCommand,
  proposeCommand,
  supersedeCommand,
  correctCommand,
  feedbackCommand,
  forgetCommand,
  undoCommand,
  logCommand,
  statusCommand,
  serveCommand,
  graphCommand,
  importCommand,
  importPromptCommand,
  learnCommand,
  refreshCommand,
  consolidateCommand,
  indexCommand,
  modelCommand,
  contextCommand,
  mcpCommand,
  lspCommand,
  checkCommand,
  mergeDriverCommand,
];
