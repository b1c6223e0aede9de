import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import axe, { type ElementContext, type PartialResults, type Result, type RunOptions } from 'axe-core';
import type { Frame, Page } from 'playwright-core';

/**
 * axe on a page and every frame in it, as @axe-core/playwright's AxeBuilder runs it (axe.runPartial
 * in each frame, cross-origin ones too, then axe.finishRun over the partial results), with
 * differences that measured half of the browser tier's time (docs/decisions.md, "axe once per
 * screen"):
 * - axe's source is evaluated in a frame only when that frame does not hold it yet, and
 *   finishRun runs in the page itself: AxeBuilder evaluates the source on every call and opens a
 *   blank page for finishRun (a clean context, which guards against a hostile page, not our own);
 * - a screen already checked is not checked again: the result is kept per worker under the
 *   viewport, the emulated media (print or screen, colour scheme, motion, forced colours: a page
 *   printed is laid out and coloured by other rules) and the markup of every frame, which is all
 *   the result depends on (the stylesheets and scripts are one build for the whole run);
 * - the partial results cross between the frames and Node.js as JSON text: as object trees,
 *   Playwright's protocol validated and copied every element of them on both sides of its
 *   connection (docs/decisions.md, "axe results as text");
 * - the source evaluated is axe's own minified build (the same version, 0.58 MB against 1.3 MB):
 *   Chromium compiled it in 110 ms instead of 170, and Playwright carries half the text through
 *   its connection (docs/decisions.md, "axe's minified build").
 */
export async function axeViolations(page: Page): Promise<Result[]> {
  const key = await screenKey(page);
  let violations = checkedScreens.get(key);
  if (!violations) {
    violations = await finishRun(page, await partialResults(page.mainFrame(), { exclude: [], include: [] }));
    checkedScreens.set(key, violations);
  }
  return violations;
}

const checkedScreens = new Map<string, Result[]>();

/** Only violations are read: passes and incomplete results are not gathered, nor carried between frames and Node.js. */
const AXE_OPTIONS: RunOptions = { resultTypes: ['violations'] };

/** The media features page.emulateMedia sets, as the page's own CSS sees them. */
const EMULATED_MEDIA = ['print', '(prefers-color-scheme: dark)', '(prefers-reduced-motion: reduce)', '(forced-colors: active)'];

async function screenKey(page: Page): Promise<string> {
  const media = await page.evaluate((queries) => queries.map((query) => window.matchMedia(query).matches), EMULATED_MEDIA);
  const hash = crypto.createHash('sha256').update(JSON.stringify([page.viewportSize(), media]));
  for (const frame of page.frames()) {
    const markup = await frame.evaluate(() => document.documentElement.outerHTML).catch(() => 'detached');
    hash.update(frame.url()).update('\0').update(markup).update('\0');
  }
  return hash.digest('hex');
}

const AXE_MIN_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

async function ensureAxe(frame: Frame): Promise<void> {
  const present = await frame.evaluate((version) => (window as unknown as { axe?: typeof axe }).axe?.version === version, axe.version);
  if (!present) await frame.evaluate(AXE_MIN_SOURCE);
}

/**
 * Each frame's partial result as JSON, depth first and parent before children, as axe.finishRun
 * expects; a frame that cannot be reached counts as null. `context` is axe's (serializable) context object.
 */
async function partialResults(frame: Frame, context: unknown): Promise<(string | null)[]> {
  await ensureAxe(frame);
  const frameContexts = await frame.evaluate((ctx) => window.axe.utils.getFrameContexts(ctx as ElementContext), context);
  const own = await frame.evaluate(async ([ctx, options]) => JSON.stringify(await window.axe.runPartial(ctx as ElementContext, options)), [
    context,
    AXE_OPTIONS,
  ] as const);
  const results: (string | null)[] = [own];
  for (const { frameSelector, frameContext } of frameContexts) {
    const child = await frame
      .evaluateHandle((selector) => window.axe.utils.shadowSelect(selector), frameSelector)
      .then((handle) => handle.asElement()?.contentFrame())
      .catch(() => null);
    if (child) results.push(...(await partialResults(child, frameContext)));
    else results.push(null);
  }
  return results;
}

async function finishRun(page: Page, partials: (string | null)[]): Promise<Result[]> {
  const violations = await page.evaluate(
    async ([jsons, options]) => {
      const results = jsons.map((json) => (json === null ? null : JSON.parse(json))) as PartialResults;
      return JSON.stringify((await window.axe.finishRun(results, options)).violations);
    },
    [partials, AXE_OPTIONS] as const,
  );
  return JSON.parse(violations) as Result[];
}

declare global {
  interface Window {
    axe: typeof axe;
  }
}
