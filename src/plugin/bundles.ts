import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type * as esbuild from 'esbuild';
import { buildBrowserBundle } from '../http/browser-build.js';

/** The published loader version (SPEC 9): its address, bytes and integrity hash never change. */
export const LOADER_VERSION = '2.0.0';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));

export interface Asset {
  body: Buffer;
  contentType: string;
  /** Content hash, used in the address of assets that are not versioned by hand. */
  hash: string;
}

export interface Bundles {
  loader: Asset;
  /** The `integrity` attribute value of the loader: sha384, base64. */
  loaderIntegrity: string;
  declarations: Asset;
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

async function buildAll(): Promise<Bundles> {
  const [loader, embedJs, embedCss, pagesCss, demoJs, demoCss, declarations] = await Promise.all([
    build('loader/loader.ts', { format: 'iife' }),
    build('embed/main.tsx', { format: 'iife', jsx: 'automatic', jsxImportSource: 'preact' }),
    build('embed/embed.css'),
    build('pages/pages.css'),
    build('demo/demo.ts', { format: 'iife' }),
    build('demo/demo.css'),
    fs.readFile(`${WEB}loader/embed-plugin.d.ts`),
  ]);
  const assets = new Map<string, Asset>();
  const named = (stem: string, ext: string, body: Buffer, type: string) => {
    const item = asset(body, type);
    const name = `${stem}.${item.hash}.${ext}`;
    assets.set(name, item);
    return name;
  };
  return {
    loader: asset(loader, 'application/javascript; charset=utf-8'),
    loaderIntegrity: `sha384-${crypto.createHash('sha384').update(loader).digest('base64')}`,
    declarations: asset(declarations, 'application/typescript; charset=utf-8'),
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
