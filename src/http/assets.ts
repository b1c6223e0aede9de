import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type * as esbuild from 'esbuild';

/** Where every browser file of the service is served: `/assets/{stem}.{content hash}.{js|css}`. */
export const ASSETS_PATH = '/assets/';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));

/**
 * Where `npm run build` writes the prebuilt browser files and their manifest: `dist/assets/`, beside
 * the compiled server (dist/http/assets.js). Run from TypeScript (src/http/assets.ts, under tsx: the
 * tests and `npm run dev`) this folder does not exist, so the service bundles web/ on demand instead.
 */
export const PREBUILT_ASSETS = fileURLToPath(new URL('../assets/', import.meta.url));
const MANIFEST = 'manifest.json';
const PREACT: esbuild.BuildOptions = { format: 'iife', jsx: 'automatic', jsxImportSource: 'preact' };

interface Entry {
  /** The entry point under web/. */
  entry: string;
  /** The file name's stem, before its content hash. */
  stem: string;
  options?: esbuild.BuildOptions;
}

/** Every script and stylesheet a page of the service (or the demo host) loads, by the name pages use. */
const ENTRIES = {
  dashboardScript: { entry: 'dashboard/main.tsx', stem: 'dashboard', options: PREACT },
  dashboardStyle: { entry: 'dashboard/dashboard.css', stem: 'dashboard' },
  embedScript: { entry: 'embed/main.tsx', stem: 'embed', options: PREACT },
  embedStyle: { entry: 'embed/embed.css', stem: 'embed' },
  /** The sandbox platform's pages, the plugin's own pages and the referral link's notice. */
  pagesStyle: { entry: 'pages/pages.css', stem: 'pages' },
  /** The staff sign-in, account and OAuth consent pages. */
  accountStyle: { entry: 'pages/account.css', stem: 'account' },
  /** The API reference's adjustments to its renderer's theme (src/http/reference-page.tsx). */
  referenceStyle: { entry: 'pages/reference.css', stem: 'reference' },
  /** The API reference's correction to its renderer's markup (web/pages/reference.ts). */
  referenceScript: { entry: 'pages/reference.ts', stem: 'reference-aria', options: { format: 'iife' } },
  /** The Shopify app home in the admin's frame: its actions as fetches App Bridge signs, and a look that follows Polaris. */
  shopifyHomeScript: { entry: 'shopify/home.ts', stem: 'shopify-home', options: { format: 'iife' } },
  shopifyHomeStyle: { entry: 'shopify/home.css', stem: 'shopify-home' },
  demoScript: { entry: 'demo/demo.ts', stem: 'demo', options: { format: 'iife' } },
  demoStyle: { entry: 'demo/demo.css', stem: 'demo' },
} satisfies Record<string, Entry>;

export type AssetName = keyof typeof ENTRIES;

export interface AssetFile {
  body: Buffer;
  contentType: string;
}

export interface BrowserAssets {
  /** The files by their hashed file name. */
  files: Map<string, AssetFile>;
  /** Each asset's address, for the pages that load it. */
  url: Record<AssetName, string>;
}

/** Bundles one browser entry point (script or stylesheet) in memory, minified for the browsers we support. */
export async function buildBrowserBundle(entryPoint: string, options: esbuild.BuildOptions = {}): Promise<Buffer> {
  // Loaded only when bundling: esbuild is a devDependency, absent from a production install.
  const esbuild = await import('esbuild').catch((error: unknown) => {
    throw new Error(`no prebuilt browser files in ${PREBUILT_ASSETS} and no esbuild to bundle web/: run npm run build`, { cause: error });
  });
  const result = await esbuild.build({
    entryPoints: [entryPoint],
    bundle: true,
    minify: true,
    write: false,
    legalComments: 'none',
    charset: 'utf8',
    target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
    logLevel: 'silent',
    ...options,
  });
  const output = result.outputFiles?.[0];
  if (!output) throw new Error(`esbuild produced nothing for ${entryPoint}`);
  return Buffer.from(output.contents);
}

function contentTypeOf(file: string): string {
  return file.endsWith('.css') ? 'text/css; charset=utf-8' : 'application/javascript; charset=utf-8';
}

/** Bundles every entry of web/ in memory, each under its content-hashed name. */
export async function bundleBrowserAssets(): Promise<BrowserAssets> {
  const files = new Map<string, AssetFile>();
  const entries: Array<[string, Entry]> = Object.entries(ENTRIES);
  const built = await Promise.all(
    entries.map(async ([name, { entry, stem, options }]) => {
      const body = await buildBrowserBundle(`${WEB}${entry}`, options);
      const css = entry.endsWith('.css');
      // Content-hashed names, so the files can be cached forever and a release never serves stale code.
      const file = `${stem}.${crypto.createHash('sha256').update(body).digest('hex').slice(0, 12)}.${css ? 'css' : 'js'}`;
      files.set(file, { body, contentType: contentTypeOf(file) });
      return [name, `${ASSETS_PATH}${file}`] as const;
    }),
  );
  return { files, url: Object.fromEntries(built) as Record<AssetName, string> };
}

/** Writes the bundles and a manifest (asset name to file name) for a compiled server to read. */
export async function writePrebuiltAssets(assets: BrowserAssets, directory: string): Promise<void> {
  await fs.mkdir(directory, { recursive: true });
  await Promise.all([...assets.files].map(([file, { body }]) => fs.writeFile(`${directory}${file}`, body)));
  const manifest = Object.fromEntries(Object.entries(assets.url).map(([name, url]) => [name, url.slice(ASSETS_PATH.length)]));
  await fs.writeFile(`${directory}${MANIFEST}`, `${JSON.stringify(manifest, null, 2)}\n`);
}

async function readPrebuiltAssets(manifestText: string): Promise<BrowserAssets> {
  const manifest = JSON.parse(manifestText) as Record<AssetName, string>;
  const files = new Map<string, AssetFile>();
  await Promise.all(
    Object.values(manifest).map(async (file) => {
      files.set(file, { body: await fs.readFile(`${PREBUILT_ASSETS}${file}`), contentType: contentTypeOf(file) });
    }),
  );
  const url = Object.fromEntries(Object.entries(manifest).map(([name, file]) => [name, `${ASSETS_PATH}${file}`]));
  return { files, url: url as Record<AssetName, string> };
}

async function loadBrowserAssets(): Promise<BrowserAssets> {
  const manifest = await fs.readFile(`${PREBUILT_ASSETS}${MANIFEST}`, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  return manifest === undefined ? bundleBrowserAssets() : readPrebuiltAssets(manifest);
}

let pending: Promise<BrowserAssets> | undefined;

/**
 * Every browser bundle and stylesheet, loaded once per process on first use: the prebuilt files of
 * `npm run build` when the compiled server runs, else bundled from web/ in memory. A failed load is
 * not kept, so the next request tries again.
 */
export function browserAssets(): Promise<BrowserAssets> {
  pending ??= loadBrowserAssets().catch((error) => {
    pending = undefined;
    throw error;
  });
  return pending;
}
