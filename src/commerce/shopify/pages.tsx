import type { FastifyReply } from 'fastify';
import { browserAssets } from '../../http/assets.js';
import { PageShell, sendPage } from '../../http/page.js';

/** Where the merchant lands back from Shopify when the plugin did not ask to be returned to: on with the plugin's tab. */
export async function sendDonePage(reply: FastifyReply, heading: string, shop: string): Promise<FastifyReply> {
  const assets = await browserAssets();
  return sendPage(
    reply,
    <PageShell title={`${heading} · Partner Collab`} stylesheet={assets.url.pagesStyle} noIndex>
      <main class="sheet">
        <h1>{heading}</h1>
        <p>
          Your Shopify store <strong>{shop}</strong> is connected to the partner network.
        </p>
        <p>Go back to the tab where you started: the plugin continues as soon as you return to it. You can close this tab.</p>
      </main>
    </PageShell>,
  );
}
