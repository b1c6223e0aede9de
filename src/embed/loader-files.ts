import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildBrowserBundle } from '../http/assets.js';

/** The current loader version (SPEC 9): the one the docs and the demo host page use. */
export const LOADER_VERSION = '2.0.0';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
/**
 * Every published loader version, one folder each, holding the exact bytes served at
 * /plugin/v{version}/: built once from web/loader by `npx tsx src/embed/publish-loader.ts` and
 * committed, never rebuilt at start. A change to the loader's source, to a file it imports or to
 * esbuild cannot change a published version's bytes, so its integrity hash stays valid.
 */
export const PUBLISHED_LOADERS = `${WEB}loader/published/`;

export interface LoaderFile {
  body: Buffer;
  contentType: string;
}

export interface PublishedLoader {
  version: string;
  loader: LoaderFile;
  /** The `integrity` attribute value of the loader: sha384, base64. */
  integrity: string;
  declarations: LoaderFile;
}

/** The loader built from source now, by the asset pipeline's esbuild call: what a new version would publish. */
export async function buildLoader(): Promise<{ loader: Buffer; declarations: Buffer }> {
  const [loader, declarations] = await Promise.all([
    buildBrowserBundle(`${WEB}loader/loader.ts`, { format: 'iife' }),
    fs.readFile(`${WEB}loader/embed-plugin.d.ts`),
  ]);
  return { loader, declarations };
}

export function integrityOf(body: Buffer): string {
  return `sha384-${crypto.createHash('sha384').update(body).digest('base64')}`;
}

/** The committed files of every published loader version. */
export async function publishedLoaders(): Promise<PublishedLoader[]> {
  const versions = (await fs.readdir(PUBLISHED_LOADERS, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  return Promise.all(
    versions.map(async (version) => {
      const [loader, declarations] = await Promise.all([
        fs.readFile(`${PUBLISHED_LOADERS}${version}/loader.js`),
        fs.readFile(`${PUBLISHED_LOADERS}${version}/index.d.ts`),
      ]);
      return {
        version,
        loader: { body: loader, contentType: 'application/javascript; charset=utf-8' },
        integrity: integrityOf(loader),
        declarations: { body: declarations, contentType: 'application/typescript; charset=utf-8' },
      };
    }),
  );
}
