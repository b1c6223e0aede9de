import type { StandInCore } from './core.js';
import type { ShopRecord } from './model.js';
import { shopPayload, type WebhookDelivery } from './webhooks.js';

/**
 * Installing and uninstalling the app on a store, whichever page or test control does it.
 *
 * Shopify-managed installation (https://shopify.dev/docs/apps/build/authentication-authorization/app-installation):
 * Shopify installs the app with the scopes of its configuration (`[access_scopes] scopes` in
 * shopify.app.toml) "without making any calls to the app": no redirect to it, no callback, no
 * token. The app gets its token by token exchange when the admin first opens it.
 */
export function installManaged(core: StandInCore, shop: ShopRecord): void {
  shop.installation.installed = true;
  shop.installation.scopes = [...core.app.scopes];
}

/**
 * The store uninstalls the app: its tokens stop working, its subscriptions are cancelled,
 * app/uninstalled goes out, and the webhook subscriptions it made through the API are gone.
 */
export async function uninstallApp(core: StandInCore, shop: ShopRecord): Promise<WebhookDelivery[]> {
  if (!shop.installation.installed) throw new Error(`the app is not installed on ${shop.domain}`);
  shop.installation.installed = false;
  shop.installation.tokens.clear();
  shop.installation.refreshTokens.clear();
  for (const subscription of shop.subscriptions)
    if (subscription.status === 'ACTIVE' || subscription.status === 'PENDING') subscription.status = 'CANCELLED';
  const deliveries = await core.webhooks.trigger(shop, 'app/uninstalled', shopPayload(shop));
  shop.webhookSubscriptions.clear();
  return deliveries;
}
