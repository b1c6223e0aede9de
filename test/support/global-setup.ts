import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildMigratedTemplates, dropRunDatabases, TEST_RUN_ENV } from './databases.js';
import { DIST_BUILT_ENV } from './service-process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The compiled service in dist/, rebuilt only when src/ or web/ changed since the last build
 * (`scripts/build.ts --if-stale`, under its own lock): the tests that start the service, the worker
 * or the CLI as processes run it from there, on plain Node as production does, which starts in
 * half the CPU of the same code through tsx.
 */
export async function buildDistIfStale(): Promise<void> {
  await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--if-stale'], { cwd: ROOT });
}

/**
 * Once per run, before any test file: the migrated templates every test database is cloned from, and
 * dist/. After the run, the run's databases that its workers left (test/support/databases.ts).
 */
export default async function setup(): Promise<() => Promise<void>> {
  await Promise.all([buildMigratedTemplates(), buildDistIfStale()]);
  // Inherited by the test workers: the processes they start do not check the build again, and
  // their databases carry the run's name.
  process.env[DIST_BUILT_ENV] = path.resolve(ROOT);
  process.env[TEST_RUN_ENV] ??= crypto.randomBytes(4).toString('hex');
  const runId = process.env[TEST_RUN_ENV];
  return () => dropRunDatabases(runId);
}
