/**
 * `npm run build`: the service compiled for production, so it runs on plain Node.js
 * (`node --enable-source-maps dist/server.js`, the same for dist/worker.js and dist/cli.js):
 * - every module of src/ (tests left out) to dist/ as JavaScript with its source map, one file per
 *   module and the same folders, so the paths the code reads beside itself (fixtures/, web/pages/,
 *   web/loader/published/) resolve from dist/ as they do from src/;
 * - every browser bundle and stylesheet of web/ prebuilt into dist/assets/ under its content-hashed
 *   name, with manifest.json naming each (src/http/assets.ts reads it). The published loaders are
 *   served from their committed bytes, never rebuilt.
 * With `--if-stale` (what `npm start` runs) it builds only when the sources differ from the last
 * build's: dist/build-stamp.json holds a hash of every input, written last, so a build cut short is
 * stale too. Processes started together (`npm start` beside `npm run start:worker`, tests running
 * `npm run migrate`) build one at a time: each holds dist.lock while it checks and builds, so none
 * runs a dist/ another is rewriting.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = `${ROOT}dist/`;
const STAMP = `${DIST}build-stamp.json`;
const LOCK = `${ROOT}dist.lock`;
const LOCK_WAIT_MS = 120_000;
/** What the build reads: a change to any of these makes the last build stale. */
const INPUTS = ['src', 'web', 'package-lock.json', 'tsconfig.json', 'scripts/build.ts'];
const TEST_FILE = /[.]test[.]tsx?$/;

function filesUnder(input: string): string[] {
  const full = `${ROOT}${input}`;
  if (fs.statSync(full).isFile()) return [input];
  return fs
    .readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => `${entry.parentPath.slice(ROOT.length)}/${entry.name}`);
}

function inputsHash(): string {
  const hash = crypto.createHash('sha256');
  for (const file of INPUTS.flatMap(filesUnder)
    .filter((file) => !TEST_FILE.test(file))
    .sort()) {
    hash
      .update(`${file}\0`)
      .update(fs.readFileSync(`${ROOT}${file}`))
      .update('\0');
  }
  return hash.digest('hex');
}

function lastBuildInputs(): string | undefined {
  try {
    return (JSON.parse(fs.readFileSync(STAMP, 'utf8')) as { inputs: string }).inputs;
  } catch {
    return undefined;
  }
}

async function build(inputs: string): Promise<void> {
  fs.rmSync(DIST, { recursive: true, force: true });
  const modules = filesUnder('src').filter((file) => /[.]tsx?$/.test(file) && !TEST_FILE.test(file));
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: modules,
    outdir: DIST,
    outbase: 'src',
    format: 'esm',
    platform: 'node',
    target: 'node22',
    sourcemap: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    logLevel: 'warning',
  });
  // Imported here, not at the top: a build that is up to date loads none of the service.
  const { bundleBrowserAssets, writePrebuiltAssets } = await import('../src/http/assets.ts');
  await writePrebuiltAssets(await bundleBrowserAssets(), `${DIST}assets/`);
  fs.writeFileSync(STAMP, `${JSON.stringify({ inputs, builtAt: new Date().toISOString() })}\n`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes dist.lock (a directory: mkdir is atomic), waiting while a live process holds it; a dead holder's lock is taken over. */
async function lockBuild(): Promise<() => void> {
  const waitedFrom = performance.now();
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      fs.writeFileSync(`${LOCK}/pid`, String(process.pid));
      return () => fs.rmSync(LOCK, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder = 0;
    try {
      holder = Number(fs.readFileSync(`${LOCK}/pid`, 'utf8'));
    } catch {
      // The holder has not written its pid yet, or has just let go: wait and look again.
    }
    if (holder > 0 && !isAlive(holder)) fs.rmSync(LOCK, { recursive: true, force: true });
    else if (performance.now() - waitedFrom > LOCK_WAIT_MS) throw new Error(`${LOCK} is held by process ${holder}: is a build stuck?`);
    else await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const started = performance.now();
const unlock = await lockBuild();
try {
  const inputs = inputsHash();
  // Up to date: nothing to say, so `npm run cli` and `npm start` print only what the service prints.
  if (!process.argv.includes('--if-stale') || lastBuildInputs() !== inputs) {
    await build(inputs);
    console.error(`built dist/ (server and browser files) in ${Math.round(performance.now() - started)} ms`);
  }
} finally {
  unlock();
}
