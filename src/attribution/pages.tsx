import type { VNode } from 'preact';
import type { BrowserAssets } from '../http/assets.js';
import { PageShell } from '../http/page.js';

/** Shown to a shopper whose link is unknown or damaged: a page for people, not an API error. */
export function linkNotFoundPage(assets: BrowserAssets): VNode {
  return (
    <PageShell title="Offer link not found" stylesheet={assets.url.pagesStyle} bodyClass="notice" noIndex>
      <main>
        <h1>This offer link is not available</h1>
        <p>
          The link may have been copied incompletely, or the offer is no longer running. Please go back to the page where you found it and
          try again.
        </p>
      </main>
    </PageShell>
  );
}
