import { notFound } from '../http/errors.js';
import type { DataContext } from '../service-context.js';
import * as dal from './dal.js';

/** The apps a brand has authorized and not revoked (the dashboard's Integrations), newest first. */
export async function listAuthorizedApps(ctx: Pick<DataContext, 'db'>, companyId: string) {
  return (await dal.listAuthorizedApps(ctx.db, companyId)).map((grant) => ({
    grantId: grant.id,
    clientId: grant.client_id,
    name: grant.client_name,
    platform: grant.platform_name,
    scope: grant.scope,
    authorizedAt: grant.created_at.toISOString(),
  }));
}

/** A brand revokes an app it authorized: the grant and every token of it; another brand's grant is not found. */
export async function revokeAuthorizedApp(ctx: DataContext, companyId: string, grantId: string): Promise<void> {
  if (!(await dal.grantBelongsTo(ctx.db, grantId, companyId))) throw notFound(`no authorized app ${grantId}`);
  await dal.revokeGrant(ctx.db, grantId, 'revoked by the brand in the dashboard');
  await ctx.bus.publish('credentials');
}
