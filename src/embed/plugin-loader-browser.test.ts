import crypto from 'node:crypto';
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ARTIFACTS, DOCS, domainFor, servePage, embeddedPluginInChromium } from '../../test/support/embed-plugin-browser.js';
import type { EmbedPluginStatic } from '../../web/loader/embed-plugin.js';

/** The drawer (closing, focus) and the loader: init's checks, the handle, the integrity hash, approved origins only. */
describe('embedded plugin in Chromium, through the demo host page: the drawer and the loader', () => {
  const { shared, open, log, stages, plugin, expectAccessible, checkScreen } = embeddedPluginInChromium();
  let browser: Browser;
  let service: string;
  let demo: string;
  let demoOtherSite: string;
  let platformId: string;
  beforeAll(() => {
    ({ browser, service, demo, demoOtherSite, platformId } = shared);
  });

  it(`opens a drawer from the right (≤ 520 px, full width when narrow) that closes three ways, \
calling onClose once each and giving focus back`, async () => {
    const { page, browserContext, frame } = await open(`/?domain=${domainFor()}&mode=drawer`);
    await frame.locator('[data-screen="install"]').waitFor({ state: 'attached' });
    const panel = page.locator('[role="dialog"]');
    const opener = page.getByRole('button', { name: 'Open brand partnerships' });
    await expect.poll(() => panel.isVisible()).toBe(false);
    await opener.click();
    await expect.poll(async () => (await panel.boundingBox())?.x).toBe(1280 - 520);
    await checkScreen(page, frame, 'install', 'drawer');
    if (DOCS) fs.copyFileSync(`${ARTIFACTS}/drawer.png`, `${DOCS}/plugin-drawer.png`);
    const closes = async () => (await log(page)).filter((line) => line.endsWith('onClose')).length;
    const focusedId = () => page.evaluate(() => document.activeElement?.id);

    await page.getByRole('button', { name: 'Close brand partnerships' }).click();
    await expect.poll(() => panel.isVisible()).toBe(false);
    expect(await closes()).toBe(1);
    await expect.poll(focusedId).toBe('open-drawer');

    await opener.click();
    await expect.poll(async () => (await panel.boundingBox())?.x).toBe(1280 - 520);
    await page.mouse.click(100, 450);
    await expect.poll(() => panel.isVisible()).toBe(false);
    expect(await closes()).toBe(2);

    await opener.focus();
    await page.keyboard.press('Enter');
    await frame.locator('h1').click();
    await page.keyboard.press('Escape');
    await expect.poll(() => panel.isVisible()).toBe(false);
    expect(await closes()).toBe(3);
    await expect.poll(focusedId).toBe('open-drawer');
    await browserContext.close();

    const narrow = await open(`/?domain=${domainFor()}&mode=drawer`, { viewport: { width: 390, height: 800 } });
    await narrow.page.getByRole('button', { name: 'Open brand partnerships' }).click();
    await expect.poll(async () => (await narrow.page.locator('[role="dialog"]').boundingBox())?.width).toBe(390);
    await narrow.browserContext.close();
  });

  it('keeps focus inside the open drawer: Tab and Shift+Tab from the app never reach the page behind it', async () => {
    const { page, browserContext, frame } = await open(`/?domain=${domainFor()}&mode=drawer`);
    await frame.locator('[data-screen="install"]').waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Open brand partnerships' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.textContent)).toBe('Close');
    /** Where focus is: 'close', 'app:<text of the focused control>', or what on the host page has it. */
    const where = async () => {
      const onHost = await page.evaluate(() => {
        const active = document.activeElement;
        if (!active?.matches('[data-embed-plugin]')) return `host:${active?.tagName ?? 'none'}#${active?.id ?? ''}`;
        const inside = active.shadowRoot!.activeElement;
        return inside?.tagName === 'IFRAME' ? 'app' : inside?.textContent === 'Close' ? 'close' : `plugin:${inside?.tagName ?? 'none'}`;
      });
      if (onHost !== 'app') return onHost;
      return `app:${await frame.locator('body').evaluate(() => document.activeElement?.textContent?.trim() ?? '')}`;
    };
    /**
     * Where focus rests after a key press. While focus crosses the frame's edge Chromium can report
     * the host's body for a moment (seen in about one run in three, before and after this test's code
     * changed, with the next Tab going on from the plugin, not the host page); a stop counts once
     * focus has settled, and focus that stays on the host page still fails the test.
     */
    const settled = async () => {
      const began = Date.now();
      let stop = await where();
      while (stop === 'host:BODY#' && Date.now() - began < 1000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        stop = await where();
      }
      return stop;
    };
    for (const direction of ['Tab', 'Shift+Tab']) {
      const seen: string[] = [];
      for (let press = 0; press < 10; press += 1) {
        await page.keyboard.press(direction);
        seen.push(await settled());
      }
      expect(
        seen.filter((stop) => !stop.startsWith('app:') && stop !== 'close'),
        `${direction} stops: ${seen.join(', ')}`,
      ).toEqual([]);
      expect(seen).toContain('close');
      expect(seen.some((stop) => stop.startsWith('app:Install the app'))).toBe(true);
    }
    await page.keyboard.press('Escape');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('open-drawer');
    await browserContext.close();
  });

  it('handle: close() calls onClose once, destroy() never does, open() does nothing in page mode', async () => {
    const { page, browserContext } = await open(`/?domain=${domainFor()}`);
    const result = await page.evaluate(async (id) => {
      const EmbedPlugin = (window as unknown as { EmbedPlugin: EmbedPluginStatic }).EmbedPlugin;
      const box = (name: string) => {
        const element = document.createElement('div');
        element.id = name;
        document.body.appendChild(element);
        return element;
      };
      const calls = { drawer: 0, destroyed: 0, page: 0 };
      const drawer = EmbedPlugin.init({
        container: box('drawer-box'),
        platformId: id,
        domain: 'handle.example',
        mode: 'drawer',
        onClose: () => (calls.drawer += 1),
      });
      drawer.open();
      drawer.close();
      drawer.close();
      const destroyed = EmbedPlugin.init({
        container: box('destroyed-box'),
        platformId: id,
        domain: 'handle.example',
        mode: 'drawer',
        onClose: () => (calls.destroyed += 1),
      });
      destroyed.open();
      destroyed.destroy();
      const pageBox = box('page-box');
      const inPage = EmbedPlugin.init({ container: pageBox, platformId: id, domain: 'handle.example', onClose: () => (calls.page += 1) });
      const shadow = pageBox.querySelector('[data-embed-plugin]')!.shadowRoot!;
      // The elements, not their styles: the iframe's height follows the app as it loads.
      const structure = () => [...shadow.querySelectorAll('*')].map((element) => `${element.tagName}.${element.className}`).join(' ');
      const before = { structure: structure(), focused: document.activeElement };
      inPage.open();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return {
        calls,
        pageDialogs: shadow.querySelectorAll('[role="dialog"]').length,
        pageUnchanged: structure() === before.structure && shadow.querySelector('.page > iframe') !== null,
        pageFocusUnmoved: document.activeElement === before.focused,
      };
    }, platformId);
    expect(result).toEqual({ calls: { drawer: 1, destroyed: 0, page: 0 }, pageDialogs: 0, pageUnchanged: true, pageFocusUnmoved: true });
    await browserContext.close();
  });

  it('throws TypeErrors, shows could-not-load for a bad id or domain, keeps one plugin per container and destroys cleanly', async () => {
    const browserContext = await browser.newContext();
    const page = await browserContext.newPage();
    // Counts the host-page listeners the loader adds and removes.
    await page.addInitScript(() => {
      const counts: Record<string, number> = {};
      (window as unknown as { listenerCounts: Record<string, number> }).listenerCounts = counts;
      type Listening = {
        addEventListener: (type: string, ...rest: unknown[]) => void;
        removeEventListener: (type: string, ...rest: unknown[]) => void;
      };
      for (const target of [window, document] as unknown as Listening[]) {
        const add = target.addEventListener.bind(target);
        const remove = target.removeEventListener.bind(target);
        target.addEventListener = (type, ...rest) => {
          counts[type] = (counts[type] ?? 0) + 1;
          add(type, ...rest);
        };
        target.removeEventListener = (type, ...rest) => {
          counts[type] = (counts[type] ?? 0) - 1;
          remove(type, ...rest);
        };
      }
    });
    await page.goto(`${demo}/?domain=${domainFor()}`);
    const result = await page.evaluate(async (id) => {
      const EmbedPlugin = (window as unknown as { EmbedPlugin: EmbedPluginStatic }).EmbedPlugin;
      const errors: string[] = [];
      const attempt = (options: unknown) => {
        try {
          EmbedPlugin.init(options as Parameters<typeof EmbedPlugin.init>[0]);
          errors.push('no error');
        } catch (error) {
          errors.push(error instanceof TypeError ? 'TypeError' : String(error));
        }
      };
      attempt({ container: '#missing', platformId: id, domain: 'a.example' });
      attempt({ container: '#plugin', platformId: id, domain: 'a.example', mode: 'sidebar' });
      attempt({ container: '#plugin', platformId: id, domain: 'a.example', onEvent: 'log' });
      attempt({ container: '#plugin', platformId: id, domain: 'a.example', onClose: 42 });
      const box = document.createElement('div');
      document.body.appendChild(box);
      EmbedPlugin.init({ container: box, platformId: '42', domain: 'a.example' });
      const badId = box.querySelector('[data-embed-plugin]')!.shadowRoot!.textContent;
      EmbedPlugin.init({ container: box, platformId: id, domain: 'not a domain' });
      const badDomain = box.querySelector('[data-embed-plugin]')!.shadowRoot!.textContent;
      const hostsAfterReinit = box.querySelectorAll('[data-embed-plugin]').length;
      const before = { ...(window as unknown as { listenerCounts: Record<string, number> }).listenerCounts };
      const fresh = document.createElement('div');
      fresh.id = 'fresh';
      document.body.appendChild(fresh);
      // React StrictMode's mount, unmount, mount; then a plain second init.
      const first = EmbedPlugin.init({ container: fresh, platformId: id, domain: 'b.example', mode: 'drawer' });
      first.destroy();
      const second = EmbedPlugin.init({ container: fresh, platformId: id, domain: 'b.example', mode: 'drawer' });
      const third = EmbedPlugin.init({ container: '#fresh', platformId: id, domain: 'b.example', mode: 'drawer' });
      const plugins = fresh.querySelectorAll('[data-embed-plugin]').length;
      second.destroy();
      third.destroy();
      const after = (window as unknown as { listenerCounts: Record<string, number> }).listenerCounts;
      return {
        errors,
        badId,
        badDomain,
        hostsAfterReinit,
        plugins,
        left: fresh.querySelectorAll('[data-embed-plugin]').length,
        listenerDelta: { message: (after.message ?? 0) - (before.message ?? 0), keydown: (after.keydown ?? 0) - (before.keydown ?? 0) },
      };
    }, platformId);
    expect(result.errors).toEqual(['TypeError', 'TypeError', 'TypeError', 'TypeError']);
    expect(result.badId).toContain('could not load');
    expect(result.badDomain).toContain('store domain is missing or not valid');
    expect(result.hostsAfterReinit).toBe(1);
    expect(result.plugins).toBe(1);
    expect(result.left).toBe(0);
    expect(result.listenerDelta).toEqual({ message: 0, keydown: 0 });
    expect(await page.locator('#fresh iframe').count()).toBe(0);
    await browserContext.close();
  });

  it('enforces the published integrity hash: a wrong hash blocks the loader', async () => {
    const browserContext = await browser.newContext();
    const page = await browserContext.newPage();
    const sri = (await (await fetch(`${service}/plugin/v2.0.0/loader.js.sri`)).text()).trim();
    const wrong = `sha384-${crypto.createHash('sha384').update('something else').digest('base64')}`;
    const sriHost = await servePage(
      (url) =>
        `<!doctype html><title>SRI</title><script src="${service}/plugin/v2.0.0/loader.js" ` +
        `integrity="${url.searchParams.get('integrity') ?? ''}" crossorigin="anonymous"></script>`,
      { 'Content-Security-Policy': `default-src 'self'; script-src 'self' ${service}; frame-src ${service}; child-src ${service}` },
    );
    try {
      for (const [integrity, expected] of [
        [sri, 'object'],
        [wrong, 'undefined'],
      ] as const) {
        await page.goto(`${sriHost.origin}/?integrity=${encodeURIComponent(integrity)}`);
        expect(await page.evaluate(() => typeof (window as unknown as { EmbedPlugin?: unknown }).EmbedPlugin)).toBe(expected);
      }
    } finally {
      sriHost.close();
    }
    await browserContext.close();
  });

  it(`refuses an origin that is not approved with a visible message, in page and drawer mode, and \
when an unapproved site frames an approved page`, async () => {
    for (const mode of ['page', 'drawer'] as const) {
      const { page, browserContext } = await open(`${demoOtherSite}/?domain=${domainFor()}&mode=${mode}`);
      const message = plugin(page).getByText('This site is not approved to show the plugin');
      await message.waitFor();
      expect(await message.isVisible()).toBe(true);
      expect(await page.locator('iframe').count()).toBe(0);
      expect(await page.locator('[role="dialog"]').count()).toBe(0);
      expect(await stages(page)).toEqual([]);
      await expectAccessible(page, `refusal (${mode})`);
      await page.screenshot({ path: `${ARTIFACTS}/refused-${mode}.png` });
      await browserContext.close();
    }

    // The approved demo page inside a site that is not approved: the browser would block the app, so the box says why.
    const outer = await servePage(
      () =>
        '<!doctype html><html lang="en"><title>Elsewhere</title>' +
        `<iframe id="outer" title="Framed platform" src="${demo}/?domain=${domainFor()}" width="1000" height="700"></iframe></html>`,
    );
    try {
      const { page, browserContext } = await open(`${outer.origin}/`);
      const inner = page.frameLocator('#outer');
      const message = inner.locator('[data-embed-plugin]').getByText('This site is not approved to show the plugin');
      await message.waitFor();
      expect(await message.isVisible()).toBe(true);
      await page.screenshot({ path: `${ARTIFACTS}/refused-framed.png` });
      await browserContext.close();
    } finally {
      outer.close();
    }
  });
});
