import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { cruise, type IForbiddenRuleType, type IViolation } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const config = createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: IForbiddenRuleType[] };
const scratch: string[] = [];

/**
 * The rules of .dependency-cruiser.cjs (what `npm run lint` runs) over a tree of small files laid
 * out as src/ is: the violations they find, as `rule: from → to`.
 */
async function violationsOf(files: Record<string, string>): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'domain-tiers-'));
  scratch.push(dir);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  const result = await cruise(
    ['src'],
    { baseDir: dir, validate: true, ruleSet: { forbidden: config.forbidden }, tsPreCompilationDeps: true },
    { extensions: ['.ts'] },
  );
  if (typeof result.output === 'string') throw new Error('expected a cruise result');
  return result.output.summary.violations.map((violation: IViolation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`);
}

const imports = (from: string) => `import { x } from '${from}';\nexport const y = x;\n`;
const leaf = 'export const x = 1;\n';

afterAll(() => {
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the import rules of npm run lint refuse a wrong import', () => {
  it('a lower domain importing a higher one', async () => {
    expect(await violationsOf({ 'src/companies/service.ts': imports('../orders/service'), 'src/orders/service.ts': leaf })).toEqual([
      'domain-tiers: base domains: src/companies/service.ts → src/orders/service.ts',
    ]);
  });

  it('a domain importing another of its own tier', async () => {
    expect(
      await violationsOf({ 'src/offers/service.ts': imports('../partnerships/service'), 'src/partnerships/service.ts': leaf }),
    ).toEqual(['domain-tiers: top domains: src/offers/service.ts → src/partnerships/service.ts']);
  });

  it('a domain importing a front end', async () => {
    expect(await violationsOf({ 'src/orders/service.ts': imports('../dashboard/service'), 'src/dashboard/service.ts': leaf })).toEqual([
      'domain-tiers: orders: src/orders/service.ts → src/dashboard/service.ts',
    ]);
  });

  it("another domain's dal, and a route's own dal", async () => {
    expect(
      await violationsOf({
        'src/offers/service.ts': imports('../campaigns/dal'),
        'src/campaigns/dal.ts': leaf,
        'src/orders/routes.ts': imports('./statements-dal'),
        'src/orders/statements-dal.ts': leaf,
      }),
    ).toEqual([
      'no-dal-across-folders: src/offers/service.ts → src/campaigns/dal.ts',
      'routes-import-no-dal: src/orders/routes.ts → src/orders/statements-dal.ts',
    ]);
  });

  it('the shared layer importing http, and a migration importing live code', async () => {
    expect(
      await violationsOf({
        'src/shared/email.ts': imports('../http/errors'),
        'src/http/errors.ts': leaf,
        'src/db/migrations/0099_x.ts': imports('../../shared/domain'),
        'src/shared/domain.ts': leaf,
      }),
    ).toEqual([
      'migrations-import-no-live-code: src/db/migrations/0099_x.ts → src/shared/domain.ts',
      'shared-imports-no-http: src/shared/email.ts → src/http/errors.ts',
    ]);
  });

  it('lets a folder import lower tiers, its own files and the shared layers, and the demo loader the bulk upserts', async () => {
    expect(
      await violationsOf({
        'src/dashboard/service.ts': imports('../offers/service'),
        'src/offers/service.ts': `${imports('../campaigns/service')}export { z } from './dal';\n`,
        'src/offers/dal.ts': 'export const z = 1;\n',
        'src/campaigns/service.ts': imports('../http/errors'),
        'src/http/errors.ts': imports('../shared/keys'),
        'src/shared/keys.ts': leaf,
        'src/demo/loader.ts': imports('../campaigns/dal'),
        'src/campaigns/dal.ts': leaf,
      }),
    ).toEqual([]);
  });
});

describe('every folder of src/ has its place in the layers', () => {
  const SHARED = ['cache', 'db', 'http', 'jobs', 'shared'];
  const tiered = config.forbidden
    .filter((rule) => rule.name?.startsWith('domain-tiers:'))
    .map((rule) => new RegExp(String(rule.from.path)));

  it('is a shared layer or in one tier of the domain rules', () => {
    const folders = fs
      .readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    for (const folder of folders) {
      const tiers = tiered.filter((pattern) => pattern.test(`src/${folder}/x.ts`)).length;
      expect(tiers, folder).toBe(SHARED.includes(folder) ? 0 : 1);
    }
  });
});
