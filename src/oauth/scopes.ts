/**
 * One scope for now: `brand` lets an app do what the brand's API key can do on the brand API
 * (partners, campaigns, recommendations, offers). Omitting scope asks for it.
 */
export const SUPPORTED_SCOPES = ['brand'] as const;
export const DEFAULT_SCOPE = ['brand'];

/** The granted scope for a requested one, or undefined when it asks for anything unknown. */
export function resolveScope(requested: string[] | undefined): string[] | undefined {
  if (requested === undefined || requested.length === 0) return [...DEFAULT_SCOPE];
  const unique = [...new Set(requested)];
  return unique.every((scope) => (SUPPORTED_SCOPES as readonly string[]).includes(scope)) ? unique : undefined;
}

export function describeScope(scope: string[]): string[] {
  return scope.map((name) =>
    name === 'brand' ? 'See your partnerships, campaigns and partner recommendations, and fetch partner offers to show to shoppers' : name,
  );
}
