import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
/** What the build reads; node_modules is linked, not copied. */
const INPUTS = ['src', 'web', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json'];

describe('npm run build, and npm start building when stale', () => {
  let checkout: string;
  /** `tsx scripts/build.ts [--if-stale]` in a copy of this checkout; resolves to what it printed. */
  const build = async (...args: string[]) => {
    const { stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/build.ts', ...args], { cwd: checkout });
    return stderr;
  };
  const readDist = (file: string) => fs.readFileSync(`${checkout}/dist/${file}`, 'utf8');
  const manifest = () => JSON.parse(readDist('assets/manifest.json')) as Record<string, string>;

  beforeAll(() => {
    checkout = fs.mkdtempSync(`${os.tmpdir()}/build-test-`);
    for (const input of INPUTS) fs.cpSync(`${ROOT}${input}`, `${checkout}/${input}`, { recursive: true });
    fs.symlinkSync(`${ROOT}node_modules`, `${checkout}/node_modules`);
  });
  afterAll(() => {
    if (checkout) fs.rmSync(checkout, { recursive: true, force: true });
  });

  it('compiles every module of src/ but the tests, with source maps, and prebuilds every browser file under a hashed name', async () => {
    expect(await build('--if-stale')).toMatch(/^built dist\//);
    expect(readDist('server.js')).toMatch(/^import .* from "\.\/app\.js";$/m);
    expect(JSON.parse(readDist('server.js.map')).sources).toEqual(['../src/server.ts']);
    expect(fs.existsSync(`${checkout}/dist/site/pages.js`)).toBe(true);
    expect(fs.readdirSync(`${checkout}/dist`, { recursive: true }).filter((file) => String(file).includes('.test.'))).toEqual([]);
    for (const [name, file] of Object.entries(manifest())) {
      expect(file, name).toMatch(/^[a-z]+\.[0-9a-f]{12}\.(js|css)$/);
      expect(fs.statSync(`${checkout}/dist/assets/${file}`).size, name).toBeGreaterThan(0);
    }
    expect(Object.keys(manifest())).toEqual(expect.arrayContaining(['dashboardScript', 'embedScript', 'pagesStyle']));
  });

  it('skips an up-to-date build silently, and rebuilds once a source changes', async () => {
    const stamp = readDist('build-stamp.json');
    expect(await build('--if-stale')).toBe('');
    expect(readDist('build-stamp.json')).toBe(stamp);

    const before = manifest().pagesStyle;
    fs.appendFileSync(`${checkout}/web/pages/pages.css`, '\n.build-test-probe { color: red; }\n');
    expect(await build('--if-stale')).toMatch(/^built dist\//);
    expect(readDist('build-stamp.json')).not.toBe(stamp);
    expect(manifest().pagesStyle).not.toBe(before);
  });
});
