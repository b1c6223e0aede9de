import fs from 'node:fs/promises';
import { buildLoader, integrityOf, LOADER_VERSION, PUBLISHED_LOADERS } from './loader-files.js';

/**
 * Publishes the loader built from web/loader as version LOADER_VERSION:
 *
 *   npx tsx src/embed/publish-loader.ts
 *
 * A published version is never written again (SPEC 9), so after a change to the loader bump
 * LOADER_VERSION (and the version inside the loader and its declarations) and run this; the
 * old version keeps being served with its old bytes.
 */
async function main(): Promise<void> {
  const folder = `${PUBLISHED_LOADERS}${LOADER_VERSION}`;
  const exists = await fs.stat(folder).then(
    () => true,
    () => false,
  );
  if (exists) {
    throw new Error(
      `loader v${LOADER_VERSION} is already published in ${folder}; its bytes never change. Bump LOADER_VERSION to publish a new version.`,
    );
  }
  const built = await buildLoader();
  await fs.mkdir(folder, { recursive: true });
  await fs.writeFile(`${folder}/loader.js`, built.loader);
  await fs.writeFile(`${folder}/index.d.ts`, built.declarations);
  process.stdout.write(`published loader v${LOADER_VERSION} in ${folder}\nintegrity ${integrityOf(built.loader)}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
