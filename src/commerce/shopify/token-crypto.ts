import crypto from 'node:crypto';

/**
 * The stores' offline access tokens are kept encrypted at rest with AES-256-GCM under
 * TOKEN_ENCRYPTION_KEY: a fresh 12-byte IV per token, the 16-byte tag checked on every read, and
 * the shop's domain as associated data, so a token copied onto another shop's row does not decrypt.
 * Stored as `v1.<iv>.<tag>.<ciphertext>` (base64url).
 */
const VERSION = 'v1';

export class TokenCipher {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the token encryption key must be 32 bytes');
  }

  encrypt(shop: string, token: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(shop));
    const ciphertext = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** Throws when the value was not made with this key for this shop (or was altered). */
  decrypt(shop: string, stored: string): string {
    const [version, iv, tag, ciphertext] = stored.split('.');
    if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('not an encrypted token');
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(shop));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}
