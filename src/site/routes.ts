import { readFile } from 'node:fs/promises';
import type { FastifyPluginAsync } from 'fastify';
import type { Runtime } from '../composition.js';
import { ASSETS_PATH, browserAssets } from '../http/assets.js';
import { notFound } from '../http/errors.js';
import { ICON_PATH, sendPage } from '../http/page.js';
import { securePages } from '../http/security-headers.js';
import { landingLinks, landingPage } from './pages.js';

const ICON_FILE = new URL('../../web/pages/favicon.svg', import.meta.url);
const ONE_DAY_SECONDS = 86_400;

/** `/` for people who open the service's address in a browser, and the icon every page links. */
export const landingRoutes: FastifyPluginAsync<Runtime> = async (app, { config }) => {
  const icon = await readFile(ICON_FILE);
  const links = landingLinks(config);
  await securePages(app, config.baseUrl);
  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    sendPage(reply, landingPage((await browserAssets()).url.pagesStyle, links)),
  );
  // Browsers ask for /favicon.ico by themselves where a page links no icon (a JSON error, the metrics).
  for (const path of [ICON_PATH, '/favicon.ico']) {
    app.get(path, { schema: { hide: true } }, async (_request, reply) =>
      reply.type('image/svg+xml').header('Cache-Control', `public, max-age=${ONE_DAY_SECONDS}`).send(icon),
    );
  }
};

/** The one route family of browser files, with the page security headers (nosniff, same-origin only). */
export const assetRoutes: FastifyPluginAsync<Runtime> = async (app, runtime) => {
  await securePages(app, runtime.config.baseUrl);
  app.get<{ Params: { name: string } }>(`${ASSETS_PATH}:name`, { schema: { hide: true } }, async (request, reply) => {
    const found = (await browserAssets()).files.get(request.params.name);
    if (!found) throw notFound(`no asset ${request.params.name}`);
    return reply.type(found.contentType).header('Cache-Control', 'public, max-age=31536000, immutable').send(found.body);
  });
};
