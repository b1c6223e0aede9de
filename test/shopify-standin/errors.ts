import { GraphQLError } from 'graphql';

/** An error the stand-in reports the way Shopify reports it: a GraphQL error with an extensions code. */
export function shopifyError(message: string, code: string, extra: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extra } });
}

/**
 * A field or argument the stand-in has no resolver for: it fails loudly instead of answering null,
 * so an adapter never passes a test against data the real Shopify would have sent.
 */
export function notImplemented(what: string): GraphQLError {
  return new GraphQLError(`The Shopify stand-in does not implement ${what}; see test/shopify-standin/README.md`, {
    extensions: { code: 'STAND_IN_NOT_IMPLEMENTED' },
  });
}
