import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const markdown = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Every file under `dir` with one of the extensions, relative to the checkout. */
function filesUnder(dir: string, extensions: string[]): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .flatMap((name) => (extensions.some((extension) => name.endsWith(extension)) ? [`${dir}/${name}`] : []));
}

/**
 * What a reader of a plain clone follows (issue 27): the README's and the docs' links to files of
 * the checkout (SPEC.md among them), and every doc a message of the service or the CLI names.
 */
describe('links and doc names lead to files of the checkout', () => {
  it('every relative link of the README and the docs names a file that exists', () => {
    const broken: string[] = [];
    let followed = 0;
    for (const file of markdown) {
      for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:|^#/.test(target!)) continue;
        followed++;
        const resolved = path.join(path.dirname(path.join(ROOT, file)), target!.split('#')[0]!);
        if (!fs.existsSync(resolved)) broken.push(`${file} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
    expect(followed).toBeGreaterThan(50);
    expect(read('README.md')).toContain('](docs/SPEC.md)');
  });

  it('every docs/….md the service, the CLI or the pages name exists', () => {
    const missing: string[] = [];
    for (const file of [...filesUnder('src', ['.ts', '.tsx']), ...filesUnder('web', ['.ts', '.tsx'])]) {
      for (const [named] of read(file).matchAll(/docs\/[\w-]+\.md/g))
        if (!fs.existsSync(path.join(ROOT, named))) missing.push(`${file}: ${named}`);
    }
    expect(missing).toEqual([]);
  });
});
