import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type * as esbuild from 'esbuild';
import { buildBrowserBundle } from '../http/browser-build.js';

const WEB = fileURLToPath(new URL('../../web/dashboard/', import.meta.url));

export interface DashboardAsset {
  body: Buffer;
  contentType: string;
}

export interface DashboardBundle {
  assets: Map<string, DashboardAsset>;
  script: string;
  style: string;
}

const build = (entry: string, options: esbuild.BuildOptions = {}) => buildBrowserBundle(`${WEB}${entry}`, options);

async function buildAll(): Promise<DashboardBundle> {
  const [script, style] = await Promise.all([
    build('main.tsx', { format: 'iife', jsx: 'automatic', jsxImportSource: 'preact' }),
    build('dashboard.css'),
  ]);
  const assets = new Map<string, DashboardAsset>();
  // Content-hashed names, so the assets can be cached forever and a release never serves stale code.
  const named = (stem: string, ext: string, body: Buffer, contentType: string) => {
    const name = `${stem}.${crypto.createHash('sha256').update(body).digest('hex').slice(0, 12)}.${ext}`;
    assets.set(name, { body, contentType });
    return name;
  };
  return {
    assets,
    script: named('dashboard', 'js', script, 'application/javascript; charset=utf-8'),
    style: named('dashboard', 'css', style, 'text/css; charset=utf-8'),
  };
}

let pending: Promise<DashboardBundle> | undefined;

/** Built once per process on first use; a failed build is not kept, so the next request tries again. */
export function dashboardBundle(): Promise<DashboardBundle> {
  pending ??= buildAll().catch((error) => {
    pending = undefined;
    throw error;
  });
  return pending;
}
