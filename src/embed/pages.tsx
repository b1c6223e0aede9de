import type { VNode } from 'preact';
import type { BrowserAssets } from '../http/assets.js';
import { JsonScript, PageShell } from '../http/page.js';
import type { EmbedBoot } from './embed-view.js';

const LEGAL: Record<string, { title: string; paragraphs: string[] }> = {
  terms: {
    title: 'Cross-promotion terms',
    paragraphs: [
      'There are no monthly fees. When a partner brand refers a new customer to your store, ' +
        "a small share of that customer's first order is charged; later orders from the same customer are free.",
      'Your offer is shown to shoppers of partner brands after they check out. You choose the discount new customers get; ' +
        'the discount code is created in your store and can be used once per customer.',
      'You can close your campaign at any time from your commerce platform; your offer stops being shown at once. ' +
        'Uninstalling the app does the same.',
    ],
  },
  privacy: {
    title: 'Privacy policy',
    paragraphs: [
      'The plugin needs no account, cookie or storage in your browser. ' +
        'It knows your store only by its domain, which the tech platform you use passes to it.',
      "To build your offer we read your store's name, logo, catalog and the number of orders per product. " +
        'We do not read customer names, addresses or emails.',
      'Views, clicks and orders coming from offers are counted per platform so that the platform that showed an offer is credited.',
    ],
  },
};

export function legalPage(name: string, assets: BrowserAssets): VNode | undefined {
  // Own keys only: `constructor` or `__proto__` in the path must not reach Object.prototype.
  const page = Object.hasOwn(LEGAL, name) ? LEGAL[name] : undefined;
  if (!page) return undefined;
  return (
    <PageShell title={page.title} stylesheet={assets.url.pagesStyle}>
      <main class="sheet">
        <h1>{page.title}</h1>
        {page.paragraphs.map((text) => (
          <p>{text}</p>
        ))}
      </main>
    </PageShell>
  );
}

/** Shown when a commerce-platform action finished in a tab of its own (no return flow). */
export function returnedPage(assets: BrowserAssets): VNode {
  return (
    <PageShell title="All done" stylesheet={assets.url.pagesStyle}>
      <main class="sheet">
        <h1>All done here</h1>
        <p>Go back to the tab where you started: the plugin picks up where you left off as soon as you return to it.</p>
        <p>You can close this tab.</p>
      </main>
    </PageShell>
  );
}

/** The embed app's page: its boot data for the script, which renders into `#app`. */
export function embedPage(boot: EmbedBoot, assets: BrowserAssets): VNode {
  return (
    <PageShell title="Brand partnerships" stylesheet={assets.url.embedStyle} bodyClass={`mode-${boot.mode}`}>
      <main id="app" aria-live="polite"></main>
      <JsonScript id="embed-boot" value={boot} />
      <script src={assets.url.embedScript}></script>
    </PageShell>
  );
}
