import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type * as esbuild from 'esbuild';
import { buildBrowserBundle } from '../http/browser-build.js';

/** The current loader version (SPEC 9): the one the docs and the demo host page use. */
export const LOADER_VERSION = '2.0.0';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
/**
 * Every published loader version, one folder each, holding the exact bytes served at
 * /plugin/v{version}/: built once from web/loader by `npx tsx src/plugin/publish-loader.ts` and
 * committed, never rebuilt at start. A change to the loader's source, to a file it imports or to
 * esbuild cannot change a published version's bytes, so its integrity hash stays valid.
 */
export const PUBLISHED_LOADERS = `${WEB}loader/published/`;

export interface Asset {
  body: Buffer;
  contentType: string;
  /** Content hash, used in the address of assets that are not versioned by hand. */
  hash: string;
}

export interface PublishedLoader {
  version: string;
  loader: Asset;
  /** The `integrity` attribute value of the loader: sha384, base64. */
  integrity: string;
  declarations: Asset;
}

export interface Bundles {
  /** The embed app's script and stylesheet, and the demo host page's, by file name. */
  assets: Map<string, Asset>;
  embedScript: string;
  embedStyle: string;
  pagesStyle: string;
  demoScript: string;
  demoStyle: string;
}

function asset(body: Buffer | string, contentType: string): Asset {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return { body: bytes, contentType, hash: crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 12) };
}

const build = (entry: string, options: esbuild.BuildOptions = {}) => buildBrowserBundle(`${WEB}${entry}`, options);

/** The loader built from source now: what a new version would publish. */
export async function buildLoader(): Promise<{ loader: Buffer; declarations: Buffer }> {
  const [loader, declarations] = await Promise.all([build('loader/loader.ts', { format: 'iife' }), fs.readFile(`${WEB}loader/embed-plugin.d.ts`)]);
  return { loader, declarations };
}

export function integrityOf(body: Buffer): string {
  return `sha384-${crypto.createHash('sha384').update(body).digest('base64')}`;
}

/** The committed files of every published loader version. */
export async function publishedLoaders(): Promise<PublishedLoader[]> {
  const versions = (await fs.readdir(PUBLISHED_LOADERS, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  return Promise.all(
    versions.map(async (version) => {
      const [loader, declarations] = await Promise.all([
        fs.readFile(`${PUBLISHED_LOADERS}${version}/loader.js`),
        fs.readFile(`${PUBLISHED_LOADERS}${version}/index.d.ts`),
      ]);
      return {
        version,
        loader: asset(loader, 'application/javascript; charset=utf-8'),
        integrity: integrityOf(loader),
        declarations: asset(declarations, 'application/typescript; charset=utf-8'),
      };
    }),
  );
}

async function buildAll(): Promise<Bundles> {
  const [embedJs, embedCss, pagesCss, demoJs, demoCss] = await Promise.all([
    build('embed/main.tsx', { format: 'iife', jsx: 'automatic', jsxImportSource: 'preact' }),
    build('embed/embed.css'),
    build('pages/pages.css'),
    build('demo/demo.ts', { format: 'iife' }),
    build('demo/demo.css'),
  ]);
  const assets = new Map<string, Asset>();
  const named = (stem: string, ext: string, body: Buffer, type: string) => {
    const item = asset(body, type);
    const name = `${stem}.${item.hash}.${ext}`;
    assets.set(name, item);
    return name;
  };
  return {
    assets,
    embedScript: named('embed', 'js', embedJs, 'application/javascript; charset=utf-8'),
    embedStyle: named('embed', 'css', embedCss, 'text/css; charset=utf-8'),
    pagesStyle: named('pages', 'css', pagesCss, 'text/css; charset=utf-8'),
    demoScript: named('demo', 'js', demoJs, 'application/javascript; charset=utf-8'),
    demoStyle: named('demo', 'css', demoCss, 'text/css; charset=utf-8'),
  };
}

let pending: Promise<Bundles> | undefined;

/**
 * The browser bundles, built from web/ once per process on first use. A failed build is not
 * memoized, so the next request tries again.
 */
export function bundles(): Promise<Bundles> {
  pending ??= buildAll().catch((error) => {
    pending = undefined;
    throw error;
  });
  return pending;
}
