/**
 * The "This wasn't me" link of a method-added notice (issue 22): made in the transaction that adds the 2-step
 * method and queues its notice, so a method that rolls back leaves no link. The token is 256 random bits; only
 * its SHA-256 is stored (storage/not-me-links.ts), with the method and the instance it removes, for 24 hours.
 * What the link does when followed: devices/not-me-links.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { NotMeLinkMethod } from '../storage/not-me-links.js';
import type { Storage } from '../storage/index.js';

/** How long a link works: a day, long enough to read the mail, short enough that an old one is worth nothing. */
export const NOT_ME_LINK_TTL_MS = 24 * 60 * 60 * 1000;
/** The link's page, on the portal's origin (routes/not-me/): GET shows what will happen, POST does it. */
export const NOT_ME_PATH = '/not-me';

/** The 2-step method just added, exactly: a factor's activation time or a passkey's id tells one set-up apart. */
export interface AddedMethod {
  method: NotMeLinkMethod;
  instance: string;
}

/** How a token is kept and looked up. */
export const notMeTokenHash = (token: string): string =>
  createHash('sha256').update(token).digest('base64url');

export interface NotMeLinkIssuerOptions {
  /** PUBLIC_URL: the link opens the portal's page. */
  portalUrl: string;
  /** The app's clock (ms since the epoch). */
  now: () => number;
}

/** Makes the links of the method-added notices (embedded mode: the portal can remove the method itself). */
export class NotMeLinkIssuer {
  constructor(private readonly options: NotMeLinkIssuerOptions) {}

  /** Stores a new link in `tx` (the change's transaction) and answers its address, which holds the token. */
  async issue(tx: Storage, userId: string, added: AddedMethod): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const at = this.options.now();
    await tx.notMeLinks.issue({
      tokenHash: notMeTokenHash(token),
      userId,
      method: added.method,
      instance: added.instance,
      createdAt: at,
      expiresAt: at + NOT_ME_LINK_TTL_MS,
    });
    return `${this.options.portalUrl}${NOT_ME_PATH}?token=${token}`;
  }
}
