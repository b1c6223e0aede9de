import type { VNode } from 'preact';
import type { BrowserAssets } from '../http/assets.js';
import { PageShell } from '../http/page.js';

/** The brand dashboard: one page running the Preact app (web/dashboard), which renders into `#app`. */
export function dashboardPage(assets: BrowserAssets): VNode {
  return (
    <PageShell title="Brand dashboard" stylesheet={assets.url.dashboardStyle}>
      <div id="app"></div>
      <script src={assets.url.dashboardScript}></script>
    </PageShell>
  );
}
