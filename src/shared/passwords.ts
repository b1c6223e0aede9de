import { hash, verify } from '@node-rs/argon2';

/**
 * Argon2id (the library's default algorithm) with OWASP's baseline cost: 19 MiB, 2 passes, one
 * lane. Passwords are guessable in a way random keys are not, so they get a memory-hard hash.
 */
const ARGON2_OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

let dummyHash: Promise<string> | undefined;

/**
 * Verifies a password against a stored hash. With no user, a throwaway hash is verified instead,
 * so an unknown email takes as long as a wrong password and does not reveal who has an account.
 */
export async function verifyPassword(storedHash: string | undefined, password: string): Promise<boolean> {
  if (storedHash === undefined) {
    dummyHash ??= hashPassword('not-a-real-password-for-timing');
    await verify(await dummyHash, password);
    return false;
  }
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}
