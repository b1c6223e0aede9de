import type { FastifyInstance, FastifyRequest } from 'fastify';
import { constantTimeEqual, hashSecret } from '../auth/keys.js';
import { ApiError, unauthorized } from '../http/errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** onRequest hook for /admin routes: `Authorization: Bearer $ADMIN_TOKEN`; 404 when ADMIN_TOKEN is unset. */
    requireAdmin: (request: FastifyRequest) => Promise<void>;
  }
}

export function installAdminAuth(app: FastifyInstance): void {
  const token = app.services.config.adminToken;
  // Hashing both sides first makes the comparison constant-time whatever the lengths.
  const expected = token ? hashSecret(token) : undefined;
  app.decorate('requireAdmin', async (request: FastifyRequest) => {
    if (!expected) throw new ApiError(404, 'not_found', 'the admin API is disabled (ADMIN_TOKEN is not set)');
    const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
    if (!match || !constantTimeEqual(hashSecret(match[1]!), expected)) {
      throw unauthorized('admin routes need Authorization: Bearer <ADMIN_TOKEN>');
    }
  });
}
