import { axeViolations } from './axe.js';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const described = (violation: { id: string; nodes: { target: unknown[] }[] }) =>
  `${violation.id} ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`;

/** axe's serious and critical findings on the page as it is, each with the elements it names. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const violations = await axeViolations(page);
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map(described);
}

/** Every axe finding, whatever its impact: for the pages held to no violation at all. */
export async function allViolations(page: Page): Promise<string[]> {
  const violations = await axeViolations(page);
  return violations.map(described);
}

/** At a phone's 390 px and at 1280 px: nothing wider than the window, and no axe finding of the kind asked. */
export async function fitsAndPasses(page: Page, label: string, findings = seriousViolations): Promise<void> {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${label} at ${width} px`).toBeLessThanOrEqual(width);
    expect(await findings(page), `${label} at ${width} px`).toEqual([]);
  }
}
