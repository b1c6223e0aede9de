import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { testConfig } from '../support/harness.js';
import { registeredRoutes } from '../support/routes.js';

/** A field that holds an amount of money: minor units, by the project's names for them. */
const MONEY_FIELD = /(Cents|Minor)$/;

/**
 * Every other number a route takes or answers, and why it is not money. A new number field must
 * be named as money (…Cents, …Minor) or listed here: a `revenue` or `total` that is neither fails.
 */
const NOT_MONEY: Record<string, string> = {
  views: 'a count of offers shown',
  clicks: 'a count of referral links followed',
  orders: 'a count of orders (counts add up across currencies)',
  newCustomers: 'a count of orders',
  entries: 'a count of ledger entries',
  id: "a ledger entry's id",
  rateBasisPoints: 'a rate, in hundredths of a percent',
  discountPercent: 'a percentage',
  matchRate: 'a score, 0 to 100',
  points: "a match term's share of the match rate",
  weight: "a match term's most points",
  customerOrderCount: "a count of the customer's orders",
  productCount: 'a count of products',
  pageIndex: 'paging',
  pageSize: 'paging',
  totalRows: 'paging',
  received: 'a count of brands in a sync',
  created: 'a count of brands in a sync',
  updated: 'a count of brands in a sync',
  expires_in: 'seconds (OAuth 2)',
};

/**
 * Where an amount's currency may be left out, and why that amount is still in one currency. Only
 * what a client sends; every answer names its currency.
 */
const CURRENCY_OPTIONAL: Record<string, string> = {
  'POST /webhooks/commerce/order-events.body':
    "a refund's amount is in its order's currency: a currency sent must be the order's (400 invalid_request otherwise)",
};

type Schema = { [key: string]: unknown };

interface RouteSchema {
  route: string;
  schema: Schema;
}

interface MoneyObject {
  at: string;
  money: string[];
  currency: Schema | undefined;
  required: boolean;
}

/** Whether a schema admits a number (an integer, a number, or either of them or null). */
const isNumber = (schema: Schema): boolean =>
  schema.type === 'integer' ||
  schema.type === 'number' ||
  (Array.isArray(schema.type) && schema.type.some((type) => type === 'integer' || type === 'number')) ||
  (Array.isArray(schema.anyOf) && (schema.anyOf as Schema[]).some(isNumber));

/** Whether a currency's schema is one ISO 4217 code: a string (or null where nothing was booked), never a list. */
const isOneCode = (schema: Schema): boolean =>
  schema.type === 'string' ||
  (Array.isArray(schema.anyOf) &&
    (schema.anyOf as Schema[]).every((option) => option.type === 'string' || option.type === 'null') &&
    (schema.anyOf as Schema[]).some((option) => option.type === 'string'));

/**
 * Walks one route's schema (params, query, body, headers and every response), through `$ref`s to
 * the app's shared schemas: every object with a money field, and every number field of any name.
 */
function walk(schema: unknown, at: string, shared: Record<string, Schema>, found: { objects: MoneyObject[]; numbers: Set<string> }) {
  const seen = new Set<unknown>();
  const visit = (node: unknown, path: string) => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    const value = node as Schema;
    if (typeof value.$ref === 'string') visit(shared[value.$ref.replace(/#$/, '')], path);
    const properties = value.properties as Record<string, Schema> | undefined;
    if (properties) {
      const money = Object.keys(properties).filter((field) => MONEY_FIELD.test(field));
      for (const [field, property] of Object.entries(properties)) if (isNumber(property)) found.numbers.add(field);
      if (money.length > 0) {
        const required = Array.isArray(value.required) && value.required.includes('currency');
        found.objects.push({ at: path, money, currency: properties.currency, required });
      }
      for (const [field, property] of Object.entries(properties)) visit(property, `${path}.${field}`);
    }
    for (const [key, child] of Object.entries(value)) {
      if (key === 'properties') continue;
      if (key === 'items') visit(child, `${path}[]`);
      else if (Array.isArray(child)) for (const option of child) visit(option, path);
      else if (child && typeof child === 'object') visit(child, `${path}.${key}`);
    }
  };
  visit(schema, at);
}

describe('money in every registered route', () => {
  let database: TestDatabase;
  let app: App;
  const routes: RouteSchema[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const seen = new Set<string>();
    const onRoute = (route: RouteOptions) => {
      const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((method) => method !== 'HEAD');
      for (const method of methods) {
        // ignoreTrailingSlash: the route tree keeps `/docs/` as `/docs`.
        const key = `${method} ${route.url.length > 1 ? route.url.replace(/\/$/, '') : route.url}`;
        if (seen.has(key)) continue;
        seen.add(key);
        routes.push({ route: key, schema: (route.schema ?? {}) as Schema });
      }
    };
    app = await buildApp({ config: testConfig(), database, onRoute });
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  const walked = () => {
    const shared = app.getSchemas() as Record<string, Schema>;
    return routes.map(({ route, schema }) => {
      const found = { objects: [] as MoneyObject[], numbers: new Set<string>() };
      walk(schema, route, shared, found);
      return { route, ...found };
    });
  };

  it('gives every amount of money, in what a route takes and answers, one currency beside it, so no figure adds currencies', () => {
    const all = walked();
    // Every route the app serves was walked, those its API reference hides (dashboard, admin) too.
    const walkedRoutes = new Set(all.map((route) => route.route));
    expect(registeredRoutes(app).filter((route) => !walkedRoutes.has(route))).toEqual([]);
    expect(walkedRoutes.size).toBeGreaterThan(100);
    const withMoney = all.filter((route) => route.objects.length > 0).map((route) => route.route);
    for (const route of [
      'GET /admin/platforms/:platformId/stats',
      'GET /admin/companies/:companyId/statement',
      'POST /admin/companies/:companyId/adjustments',
      'GET /dashboard/api/performance',
      'GET /dashboard/api/performance/shown',
      'GET /dashboard/api/performance/received',
      'GET /dashboard/api/statement',
      'POST /webhooks/commerce/orders',
      'POST /webhooks/commerce/order-events',
    ]) {
      expect(withMoney, route).toContain(route);
    }
    const problems = all.flatMap((route) =>
      route.objects.flatMap((object) => {
        const where = `${object.at} {${object.money.join(', ')}}`;
        if (!object.currency) return [`${where}: no currency beside it`];
        if (!isOneCode(object.currency)) return [`${where}: its currency is not one ISO 4217 code`];
        if (!object.required && !(object.at in CURRENCY_OPTIONAL)) return [`${where}: its currency may be left out`];
        return [];
      }),
    );
    expect(problems).toEqual([]);
  });

  it('names every number a route takes or answers as money (…Cents, …Minor) or as a count or rate: no money hides in a plain name', () => {
    const numbers = new Set(walked().flatMap((route) => [...route.numbers]));
    const unnamed = [...numbers].filter((field) => !MONEY_FIELD.test(field) && !(field in NOT_MONEY)).sort();
    expect(unnamed).toEqual([]);
    // The list holds only names some route still uses.
    expect(Object.keys(NOT_MONEY).filter((field) => !numbers.has(field))).toEqual([]);
  });
});
