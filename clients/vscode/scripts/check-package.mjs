#!/usr/bin/env node
// CI check for the VS Code extension, offline and without @vscode/vsce (140 MB of dependencies, and
// its current major needs Node 22): validates the manifest fields VS Code reads, type-checks,
// bundles src/extension.ts into one CommonJS file (rolldown, already installed through vite),
// loads the bundle, and writes a .vsix with vsce's layout ([Content_Types].xml,
// extension.vsixmanifest, extension/...). Exits 1 with one line per problem.
// Run from anywhere: `node clients/vscode/scripts/check-package.mjs`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const EXT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(EXT, 'package.json'));
const pkg = JSON.parse(readFileSync(path.join(EXT, 'package.json'), 'utf8'));
const problems = [];
const check = (ok, message) => ok || problems.push(message);

// 1. The manifest: what VS Code's extension validator and the tools contribution point reject.
const semver = /^\d+\.\d+\.\d+(-[\w.]+)?$/;
check(/^[a-z0-9][a-z0-9._-]*$/.test(pkg.name ?? ''), 'name: lowercase letters, digits, "-", "." or "_"');
check(typeof pkg.publisher === 'string' && pkg.publisher.length > 0, 'publisher: required');
check(semver.test(pkg.version ?? ''), 'version: must be semver (x.y.z)');
const engine = /^\^(\d+\.\d+\.\d+)$/.exec(pkg.engines?.vscode ?? '');
check(engine, 'engines.vscode: must be a caret range such as ^1.95.0');
check(typeof pkg.main === 'string' && pkg.main.startsWith('out/'), 'main: must point into out/ (the bundle)');
check(
  Array.isArray(pkg.activationEvents) && pkg.activationEvents.every((e) => typeof e === 'string'),
  'activationEvents: array of strings',
);
const settings = pkg.contributes?.configuration?.properties ?? {};
for (const [key, s] of Object.entries(settings))
  check('type' in s && 'default' in s, `setting ${key}: needs type and default`);
for (const tool of pkg.contributes?.languageModelTools ?? []) {
  const t = `languageModelTools ${tool.name}`;
  check(
    /^(?!copilot_|vscode_)[\w-]+$/.test(tool.name ?? ''),
    `${t}: name must match [\\w-]+ and not start with copilot_/vscode_`,
  );
  for (const field of ['displayName', 'modelDescription'])
    check(typeof tool[field] === 'string' && tool[field], `${t}: ${field} required`);
  if (tool.canBeReferencedInPrompt)
    check(
      /^[\w-]+$/.test(tool.toolReferenceName ?? ''),
      `${t}: toolReferenceName required to be referenced in prompts`,
    );
  const schema = tool.inputSchema ?? {};
  check(schema.type === 'object', `${t}: inputSchema.type must be "object"`);
  for (const r of schema.required ?? [])
    check(schema.properties?.[r], `${t}: required "${r}" is not in inputSchema.properties`);
  for (const [, key] of (tool.when ?? '').matchAll(/config\.([\w.]+)/g))
    check(settings[key], `${t}: when clause names unknown setting ${key}`);
}
let typesVersion = null;
try {
  typesVersion = JSON.parse(readFileSync(require.resolve('@types/vscode/package.json'), 'utf8')).version;
} catch {
  problems.push('@types/vscode is not installed: add it to the root devDependencies');
}
if (engine && typesVersion) {
  const [a, b] = [typesVersion, engine[1]].map((v) => v.split('.').map(Number));
  const newer = a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  check(
    newer <= 0,
    `@types/vscode ${typesVersion} is newer than engines.vscode ${pkg.engines.vscode}: the API may not exist there`,
  );
}
if (problems.length) fail();

// 2. Type-check with the extension's tsconfig, then bundle (vscode stays external: the host provides it).
const tsc = require.resolve('typescript/bin/tsc');
try {
  execFileSync(process.execPath, [tsc, '-p', path.join(EXT, 'tsconfig.json'), '--noEmit'], { stdio: 'pipe' });
} catch (e) {
  problems.push(`tsc:\n${e.stdout}${e.stderr}`);
  fail();
}
const { rolldown } = await import(require.resolve('rolldown'));
const bundle = await rolldown({
  input: path.join(EXT, 'src/extension.ts'),
  platform: 'node',
  external: ['vscode'],
  logLevel: 'warn',
});
const mainFile = path.join(EXT, pkg.main);
await bundle.write({ file: mainFile, format: 'cjs' });

// 3. Load the bundle with a stand-in `vscode` module: catches missing runtime dependencies.
// Every property of the stand-in is itself a constructible stand-in (the client subclasses vscode classes).
const stub = new Proxy(function () {}, {
  get: (_, key) => (key === 'then' ? undefined : key === 'prototype' ? {} : stub),
});
const Module = require('node:module');
const load = Module._load;
Module._load = (request, ...rest) => (request === 'vscode' ? stub : load(request, ...rest));
try {
  const exported = require(mainFile);
  check(
    typeof exported.activate === 'function' && typeof exported.deactivate === 'function',
    `${pkg.main}: must export activate and deactivate`,
  );
} catch (e) {
  problems.push(`${pkg.main} does not load: ${e.message.slice(0, 300)}`);
} finally {
  Module._load = load;
}
if (problems.length) fail();

// 4. The .vsix: a zip with the layout vsce writes.
const xml = (s) =>
  String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const files = [
  ['extension/package.json', readFileSync(path.join(EXT, 'package.json'))],
  [`extension/${pkg.main}`, readFileSync(mainFile)],
];
for (const [name, target] of [
  ['README.md', 'readme.md'],
  ['LICENSE', 'LICENSE.txt'],
]) {
  if (existsSync(path.join(EXT, name)))
    files.push([`extension/${target}`, readFileSync(path.join(EXT, name))]);
}
const types = [...new Set(files.map(([n]) => path.extname(n)))].map(
  (e) =>
    `<Default Extension="${e}" ContentType="${{ '.js': 'application/javascript', '.json': 'application/json', '.md': 'text/markdown' }[e] ?? 'text/plain'}"/>`,
);
const tags = [
  ...(pkg.keywords ?? []),
  ...(pkg.contributes?.languageModelTools?.length ? ['tools', 'language-model-tools'] : []),
];
const manifest = `<?xml version="1.0" encoding="utf-8"?>
<PackageManifest Version="2.0.0" xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011" xmlns:d="http://schemas.microsoft.com/developer/vsx-schema-design/2011">
  <Metadata>
    <Identity Language="en-US" Id="${xml(pkg.name)}" Version="${xml(pkg.version)}" Publisher="${xml(pkg.publisher)}" />
    <DisplayName>${xml(pkg.displayName ?? pkg.name)}</DisplayName>
    <Description xml:space="preserve">${xml(pkg.description ?? '')}</Description>
    <Tags>${xml(tags.join(','))}</Tags>
    <Categories>${xml((pkg.categories ?? []).join(','))}</Categories>
    <GalleryFlags>Public</GalleryFlags>
    <Properties>
      <Property Id="Microsoft.VisualStudio.Code.Engine" Value="${xml(pkg.engines.vscode)}" />
      <Property Id="Microsoft.VisualStudio.Code.ExtensionKind" Value="workspace" />
      <Property Id="Microsoft.VisualStudio.Code.ExecutesCode" Value="true" />
      <Property Id="Microsoft.VisualStudio.Services.GitHubFlavoredMarkdown" Value="true" />
      <Property Id="Microsoft.VisualStudio.Services.Content.Pricing" Value="Free"/>
    </Properties>
  </Metadata>
  <Installation><InstallationTarget Id="Microsoft.VisualStudio.Code"/></Installation>
  <Dependencies/>
  <Assets>
    <Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" Addressable="true" />
${files.some(([n]) => n === 'extension/readme.md') ? '    <Asset Type="Microsoft.VisualStudio.Services.Content.Details" Path="extension/readme.md" Addressable="true" />\n' : ''}  </Assets>
</PackageManifest>
`;
const entries = [
  ['extension.vsixmanifest', Buffer.from(manifest)],
  [
    '[Content_Types].xml',
    Buffer.from(
      `<?xml version="1.0" encoding="utf-8"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension=".vsixmanifest" ContentType="text/xml"/>${types.join('')}</Types>`,
    ),
  ],
  ...files,
];
const vsix = path.join(EXT, 'out', `${pkg.name}-${pkg.version}.vsix`);
mkdirSync(path.dirname(vsix), { recursive: true });
writeFileSync(vsix, zip(entries));
console.log(
  `check-package: manifest ok, tsc ok, bundle ok; wrote ${path.relative(process.cwd(), vsix)} (${entries.map(([n]) => n).join(', ')})`,
);

/** A plain deflate zip, with fixed timestamps so the same input gives the same bytes. */
function zip(items) {
  const local = [];
  const central = [];
  let offset = 0;
  for (const [name, data] of items) {
    const nameBytes = Buffer.from(name);
    const packed = zlib.deflateRawSync(data);
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt16LE(0x0800, 6); // UTF-8 names
    head.writeUInt16LE(8, 8); // deflate
    head.writeUInt16LE(0, 10);
    head.writeUInt16LE(33, 12); // 1980-01-01
    head.writeUInt32LE(zlib.crc32(data), 14);
    head.writeUInt32LE(packed.length, 18);
    head.writeUInt32LE(data.length, 22);
    head.writeUInt16LE(nameBytes.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    head.copy(dir, 6, 4, 30); // version needed .. name length: same fields as the local header
    dir.writeUInt32LE(offset, 42);
    local.push(head, nameBytes, packed);
    central.push(dir, nameBytes);
    offset += head.length + nameBytes.length + packed.length;
  }
  const size = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(items.length, 8);
  end.writeUInt16LE(items.length, 10);
  end.writeUInt32LE(size, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...local, ...central, end]);
}

function fail() {
  for (const p of problems) console.error(`check-package: ${p}`);
  process.exit(1);
}
