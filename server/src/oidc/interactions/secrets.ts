import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** What a sign-in key is used for; each purpose has its own key, so a value made for one fits no other. */
export type SignInKeyPurpose = 'csrf' | 'device-cookie' | 'throttle-key';

const PURPOSES: readonly SignInKeyPurpose[] = ['csrf', 'device-cookie', 'throttle-key'];

/** The HMAC keys of every purpose, from the cookie keys (the first signs). */
function derive(cookieKeys: readonly string[]): Map<SignInKeyPurpose, Buffer[]> {
  if (cookieKeys.length === 0) throw new Error('the sign-in pages need at least one cookie key');
  return new Map(
    PURPOSES.map((purpose) => [
      purpose,
      cookieKeys.map((key) =>
        Buffer.from(hkdfSync('sha256', key, 'portal sign-in', `portal sign-in ${purpose}`, 32)),
      ),
    ]),
  );
}

/**
 * HMAC keys of the sign-in pages, derived (HKDF-SHA256) from the provider's cookie keys (the key ring's, src/keys):
 * the first key signs, every key verifies, so the ring's rotation of the cookie keys rotates these too. Given a
 * getter, the keys follow it: they are derived again when it returns another list.
 */
export class SignInKeys {
  private readonly source: () => readonly string[];
  private derivedFrom: readonly string[];
  private keys: Map<SignInKeyPurpose, Buffer[]>;

  constructor(cookieKeys: readonly string[] | (() => readonly string[])) {
    this.source = typeof cookieKeys === 'function' ? cookieKeys : () => cookieKeys;
    this.derivedFrom = this.source();
    this.keys = derive(this.derivedFrom);
  }

  private keysFor(purpose: SignInKeyPurpose): Buffer[] {
    const cookieKeys = this.source();
    if (cookieKeys !== this.derivedFrom) {
      this.keys = derive(cookieKeys);
      this.derivedFrom = cookieKeys;
    }
    const keys = this.keys.get(purpose);
    if (!keys) throw new Error(`no key for ${purpose}`);
    return keys;
  }

  /** base64url HMAC-SHA256 of `value` with the current key of `purpose`. */
  sign(purpose: SignInKeyPurpose, value: string): string {
    const [current] = this.keysFor(purpose);
    return createHmac('sha256', current!).update(value).digest('base64url');
  }

  /** Whether `mac` is `value`'s HMAC under any key of `purpose` (constant-time comparison). */
  verify(purpose: SignInKeyPurpose, value: string, mac: string): boolean {
    const given = Buffer.from(mac);
    return this.keysFor(purpose).some((key) => {
      const expected = Buffer.from(createHmac('sha256', key).update(value).digest('base64url'));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  }
}
