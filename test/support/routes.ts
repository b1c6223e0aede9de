import type { App } from '../../src/app.js';

/**
 * "METHOD /path" of every route, read from the app's own radix tree (each node prints the part
 * of the path it adds). HEAD routes are the ones Fastify adds for every GET; they run the GET
 * handler, and the GET probes send HEAD at random.
 */
export function registeredRoutes(app: App): string[] {
  const prefixes: string[] = [];
  const routes: string[] = [];
  for (const line of app.printRoutes().split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    prefixes.length = depth;
    const path = (prefixes[depth - 1] ?? '') + (match[2] === '(empty root node)' ? '' : match[2]!);
    prefixes[depth] = path;
    for (const method of match[3]?.split(', ') ?? []) if (method !== 'HEAD') routes.push(`${method} ${path}`);
  }
  return [...new Set(routes)];
}
