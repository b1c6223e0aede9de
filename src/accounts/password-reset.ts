import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import { ApiError, badRequest } from '../http/errors.js';
import { hashSecret, randomToken } from '../shared/keys.js';
import * as dal from './dal.js';
import type { Mailer } from './mail.js';
import { hashPassword } from '../shared/passwords.js';
import { addressWait, RESET_REQUEST_BUDGET, resetWaitMessage } from './throttle.js';
import { normalizeEmail } from '../shared/email.js';
import { checkPassword } from './users.js';

export const RESET_LIFETIME_MS = 30 * 60_000;

export interface PasswordResetContext {
  db: Db;
  /** Undefined on a prod host without SMTP_URL: there is no way to reach the account's owner. */
  mailer: Mailer | undefined;
  baseUrl: string;
  log: FastifyBaseLogger;
}

function resetMail(to: string, token: string, baseUrl: string) {
  return {
    to,
    subject: 'Reset your Partner Collaboration password',
    text:
      `Someone asked to reset the password of your brand dashboard account (${to}).\n\n` +
      `Open ${baseUrl}/dashboard, choose "Reset password" and enter this reset token:\n\n${token}\n\n` +
      `The token works once, for ${RESET_LIFETIME_MS / 60_000} minutes. ` +
      'If you did not ask for it, ignore this message: your password stays as it is.\n',
  };
}

/**
 * Starts a reset: a single-use token, stored hashed, mailed to the account's address. Each address
 * has a budget of requests (src/accounts/throttle.ts), spent alike by emails with and without an
 * account; past it, 429 with Retry-After. The answer is the same whether the email has an account,
 * and the mail leaves in the background so the time taken does not tell either. The token is never
 * logged or returned.
 */
export async function requestPasswordReset(ctx: PasswordResetContext, emailInput: string, ip: string, now = new Date()): Promise<void> {
  if (!ctx.mailer) throw new ApiError(503, 'service_unavailable', 'password reset by email is not set up on this host: it needs SMTP_URL');
  const { perAddress, windowMs } = RESET_REQUEST_BUDGET;
  const wait = await dal.takePasswordResetTurn(ctx.db, { ip, now, since: new Date(now.getTime() - windowMs) }, (history) =>
    addressWait(history, perAddress, windowMs, now),
  );
  if (wait) throw new ApiError(429, 'rate_limited', resetWaitMessage(wait), {}, { 'Retry-After': String(wait.retryAfterSeconds) });
  const email = normalizeEmail(emailInput);
  const userId = await dal.findUserIdByEmail(ctx.db, email);
  if (!userId) return;
  const token = randomToken(43);
  await dal.insertPasswordReset(ctx.db, { tokenHash: hashSecret(token), userId, expiresAt: new Date(now.getTime() + RESET_LIFETIME_MS) });
  const mailer = ctx.mailer;
  void mailer.send(resetMail(email, token, ctx.baseUrl)).catch((error: unknown) => {
    // Only the failure's kind: a transport error may quote the message it could not send.
    const code = error instanceof Error ? ((error as Error & { code?: string }).code ?? error.name) : 'unknown';
    ctx.log.error({ mailer: mailer.kind, code }, 'could not send a password reset mail');
  });
}

export async function completePasswordReset(
  ctx: Pick<PasswordResetContext, 'db'>,
  token: string,
  password: string,
  now = new Date(),
): Promise<void> {
  checkPassword(password);
  const done = await dal.resetPassword(ctx.db, hashSecret(token), await hashPassword(password), now);
  if (!done) throw badRequest('token is unknown, used or expired', 'invalid_token');
}
