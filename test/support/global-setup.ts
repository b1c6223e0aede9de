import { buildMigratedTemplates } from './databases.js';

/** Once per run, before any test file: the migrated templates every test database is cloned from. */
export default async function setup(): Promise<void> {
  await buildMigratedTemplates();
}
