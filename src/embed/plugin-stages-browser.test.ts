import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, DOCS, domainFor, embeddedPluginInChromium } from '../../test/support/embed-plugin-browser.js';

/** The merchant's walk through every stage, and the slow store's delayed on the way. */
describe('embedded plugin in Chromium, through the demo host page: the stages', () => {
  const { shared, open, log, stages, checkScreen, screenAfterAction, inNewTab, holdAt, heights, settledHeight } =
    embeddedPluginInChromium();
  let service: string;
  beforeAll(() => {
    ({ service } = shared);
  });

  it(`walks every stage in page mode under the host CSP (install → plan → setting_up → consent → live), 480 px at \
first, growing with its content and never below 480 px`, async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const { page, browserContext, frame, problems, consoleErrors } = await open(`/?domain=${domainFor()}`, {
      // The app's page is held back, so the box is seen as the loader first draws it.
      prepare: (p) =>
        p.route(`${service}/plugin/v2/embed*`, async (route) => {
          await held;
          await route.continue();
        }),
    });
    const iframe = page.locator('iframe[title="Brand partnerships"]');
    await iframe.waitFor();
    expect((await iframe.boundingBox())!.height).toBe(480);
    expect((await iframe.boundingBox())!.width).toBeGreaterThan(600);
    release();

    await checkScreen(page, frame, 'install');
    const install = await settledHeight(page, frame);
    // The install screen's content is shorter than the box: the box stays at 480 px, the host page does not shift.
    expect((await heights(page, frame)).content).toBeLessThan(480);
    expect(install).toBe(480);
    await inNewTab(page, frame, 'Install the app', 'Install app');
    await frame.locator('[data-screen="plan"]').waitFor();
    await checkScreen(page, frame, 'plan');
    const settingUpChecked = await holdAt(page, 'setting_up');
    await inNewTab(page, frame, 'Approve plan', 'Approve plan');

    await frame.locator('[data-screen="setting_up"]').waitFor();
    const steps = frame.locator('.progress li');
    const progress = await steps.allTextContents();
    expect(progress).toEqual([
      expect.stringMatching(/^Importing your store \((in progress|done)\)$/),
      expect.stringMatching(/^Creating your offer from your best sellers \((to do|in progress|done)\)$/),
      expect.stringMatching(/^Finding brands that fit yours \((to do|in progress|done)\)$/),
    ]);
    // The step under way is the current one.
    expect(await steps.nth(progress.findIndex((step) => !step.endsWith('(done)'))).getAttribute('aria-current')).toBe('step');
    await checkScreen(page, frame, 'setting_up');
    await settingUpChecked();

    await checkScreen(page, frame, 'consent');
    const consent = await settledHeight(page, frame);
    expect(consent).toBeGreaterThan(install);
    expect(consent).toBeGreaterThan(480);
    await page.screenshot({ path: `${ARTIFACTS}/page-consent.png` });
    if (DOCS) fs.copyFileSync(`${ARTIFACTS}/page-consent.png`, `${DOCS}/plugin-page.png`);
    expect(await frame.locator('.products li').count()).toBe(3);
    await frame.getByLabel('20%').check();
    await frame.getByRole('button', { name: 'Turn on cross-promotions' }).click();
    await checkScreen(page, frame, 'live');
    const live = await settledHeight(page, frame);
    expect(live).toBeLessThan(consent);
    expect(live).toBeGreaterThanOrEqual(480);

    await expect.poll(() => stages(page)).toEqual(['install', 'plan', 'setting_up', 'consent', 'live']);
    for (const line of await log(page)) expect(Object.keys(JSON.parse(line.slice(line.indexOf('{'))))).toEqual(['type', 'stage']);
    expect(problems).toEqual([]);
    // A store token is traded only once the owner confirmed, so no call of the walk fails in the console.
    expect(consoleErrors).toEqual([]);
    await browserContext.close();
  });

  it(`the demo platform's slow merchant shows delayed as its label says, in the exact order install → plan → setting_up → \
delayed → consent → live`, async () => {
    const { page, browserContext, frame } = await open('/');
    // The first merchant's install event is in the log, which a tab keeps across the platform's pages: cleared first.
    await expect.poll(() => stages(page)).toEqual(['install']);
    await page.getByRole('button', { name: 'Clear log' }).click();
    const preset = page.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'slow-roasters.example' }) });
    expect(await preset.textContent()).toContain('the delayed stage');
    await preset.getByRole('link').click();
    await page.waitForURL(/domain=slow-roasters\.example/);
    await frame.locator('[data-screen="install"]').waitFor();
    await inNewTab(page, frame, 'Install the app', 'Install app');
    await frame.locator('[data-screen="plan"]').waitFor();
    const delayedChecked = await holdAt(page, 'delayed');
    await inNewTab(page, frame, 'Approve plan', 'Approve plan');
    await frame.locator('[data-screen="setting_up"]').waitFor();
    await checkScreen(page, frame, 'delayed');
    await delayedChecked();
    await frame.locator('[data-screen="consent"]').waitFor({ timeout: 60_000 });
    await frame.getByRole('button', { name: 'Turn on cross-promotions' }).click();
    await screenAfterAction(frame, 'live');
    await expect.poll(() => stages(page)).toEqual(['install', 'plan', 'setting_up', 'delayed', 'consent', 'live']);
    await browserContext.close();
  });
});
