import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listOAuthClients, registerOAuthClient } from './clients.js';
import { ClientList, RegisterClientBody, RegisteredClientResponse } from './schemas.js';
import type { Runtime } from '../composition.js';

const errorRef = Type.Ref('ErrorResponse');

/** Support's OAuth client registry. */
export const oauthAdminRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config } = runtime;

  app.post(
    '/admin/oauth-clients',
    {
      schema: {
        summary: 'Register an OAuth client',
        tags: ['admin'],
        body: RegisterClientBody,
        response: { 201: RegisteredClientResponse, 400: errorRef, 401: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (request, reply) => {
      const registered = await registerOAuthClient({ db, serviceEnv: config.serviceEnv }, request.body);
      return reply.status(201).send(registered);
    },
  );

  app.get(
    '/admin/oauth-clients',
    { schema: { summary: 'List OAuth clients (never their secrets)', tags: ['admin'], response: { 200: ClientList, 401: errorRef } } },
    async () => ({ data: await listOAuthClients({ db }) }),
  );
};
