import { expect } from 'vitest';
import type { CreateShopOptions, ShopifyStandIn } from '../shopify-standin/stand-in.js';
import { collabReferral, DASHBOARD_PASSWORD, DashboardClient } from './dashboard-client.js';
import { createPlatform, uniqueId } from './factories.js';
import type { TestContext } from './harness.js';
import { answerPlan, confirmClaimInAdmin, install, newChallenge } from './shopify.js';

/**
 * A Shopify store joins through a sign-up (its claim confirmed by installing the app), offers 15%
 * (a Shopify discount code), approves the plan, and is the partner of a running campaign shown
 * on a platform: the referral token leads to it.
 */
export async function shopifyCollab(
  context: TestContext,
  standIn: ShopifyStandIn,
  store: Pick<CreateShopOptions, 'currency' | 'billingCurrency' | 'countryCode'> = {},
) {
  const shop = standIn.createShop({
    name: uniqueId('partner')
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '-'),
    products: 8,
    orders: 30,
    ...store,
  }).domain;
  const partner = new DashboardClient(context.app);
  await partner.start();
  const partnerEmail = `${uniqueId('p')}@store.example`;
  const signUp = await partner.signUp({
    email: partnerEmail,
    password: DASHBOARD_PASSWORD,
    brand: { businessName: 'Shopify Partner', domain: shop, categories: [] },
  });
  expect(signUp.statusCode, signUp.body).toBe(201);
  // The claimant is sent to the app in the store's admin, where its staff confirm the claim.
  expect(signUp.json().claim.confirmUrl).toBe(standIn.adminAppUrl(shop).replace(standIn.app.handle, standIn.app.apiKey));
  // The host has the sandbox too (a test host): the claim names the platform this store is on.
  expect(signUp.json().claim.message).toContain('Shopify');
  // The plugin's challenge rides on the install, as the plugin's links carry it; the plan asks for it.
  const challenge = newChallenge();
  const installed = await install(context.app, standIn, `/commerce/shopify/install?shop=${shop}&challenge=${challenge}`);
  expect(installed.statusCode, installed.body).toBe(200);
  await confirmClaimInAdmin(context.app, standIn, shop, partnerEmail);
  const checked = await partner.post('/dashboard/api/claim/check');
  const partnerId: string = checked.json().companyId;
  expect(partnerId, checked.body).toBeTruthy();
  const offer = await partner.post('/dashboard/api/offer', {
    title: '15% off',
    imageUrl: 'https://cdn.example/p.png',
    discountPercent: 15,
  });
  expect(offer.statusCode, offer.body).toBeLessThan(300);
  expect([...standIn.shop(shop).discounts.values()].map((discount) => discount.appliesOncePerCustomer)).toEqual([true]);
  await answerPlan(context.app, standIn, `/commerce/shopify/plan?shop=${shop}&challenge=${challenge}`);

  const shower = new DashboardClient(context.app);
  const showerId = await shower.signUpBrand('Shower Co', `${uniqueId('shower')}.example`, `${uniqueId('s')}@shower.example`);
  const { platformId } = await createPlatform(context.support);
  const { token, key } = await collabReferral(context.app, {
    owner: shower,
    ownerId: showerId,
    partner,
    partnerId,
    platformId,
    name: 'Orders',
  });
  return { shop, challenge, token, key, platformId, partner, partnerEmail };
}
