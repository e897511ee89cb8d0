/**
 * Deploy keys: a remote's team acts on that remote's releases with one (`Authorization: Deploy pdk_…`). A key is 32
 * random bytes, base64url, prefixed `pdk_`; it is shown once at creation and only its SHA-256 is kept, so a copy of
 * the database holds no usable key. Created, revoked and listed by the operators (release-keys-cli.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { API_ERRORS, DEPLOY_KEY_PREFIX, releaseRemoteNameSchema } from 'shared-auth/contract';
import { refusal } from '../http/errors.js';
import type { DeployKey, DeployKeyStore } from '../storage/deploy-keys.js';

const KEY_PATTERN = new RegExp(`^${DEPLOY_KEY_PREFIX}[A-Za-z0-9_-]{43}$`);
const AUTHORIZATION_PATTERN = /^Deploy\s+(\S+)\s*$/i;

/** A label names a team in the audit: printable text, no line breaks. */
const LABEL_PATTERN = /^[^\p{Cc}]{1,100}$/u;

export function hashDeployKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A new key: `pdk_` and 32 random bytes, base64url (43 characters). */
export function newDeployKey(): string {
  return `${DEPLOY_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** An operator's mistake in create or revoke (the CLI prints it and exits 1). */
export class DeployKeyError extends Error {
  override readonly name = 'DeployKeyError';
}

export class DeployKeys {
  constructor(
    private readonly store: DeployKeyStore,
    private readonly now: () => number,
  ) {}

  /** Creates a key for `remote` under `label` (unique among live keys); returns the key, shown once. */
  async create(remote: string, label: string): Promise<string> {
    if (!releaseRemoteNameSchema.safeParse(remote).success) {
      throw new DeployKeyError(`"${remote}" is not a remote name (a JS identifier, e.g. remote_profile)`);
    }
    const trimmed = label.trim();
    if (!LABEL_PATTERN.test(trimmed)) {
      throw new DeployKeyError('The label must be 1 to 100 characters on one line, e.g. "Profile team"');
    }
    const key = newDeployKey();
    const added = await this.store.add(hashDeployKey(key), { label: trimmed, remote, createdAt: this.now() });
    if (!added)
      throw new DeployKeyError(
        `A live key is labelled "${trimmed}" already: revoke it or choose another label`,
      );
    return key;
  }

  /** Revokes the live key with this label; false when there is none. */
  revoke(label: string): Promise<boolean> {
    return this.store.revoke(label.trim(), this.now());
  }

  list(): Promise<DeployKey[]> {
    return this.store.list();
  }

  /**
   * The live key an `Authorization: Deploy <key>` header names, allowed to act on `remote`. 401 invalid_deploy_key
   * for no header, another scheme (a bearer token too), a malformed, unknown or revoked key; 403 forbidden_remote
   * for another remote's key.
   */
  async authorize(header: string | undefined, remote: string): Promise<DeployKey> {
    const key = AUTHORIZATION_PATTERN.exec(header ?? '')?.[1];
    const challenge = { 'WWW-Authenticate': 'Deploy' };
    if (!key)
      throw refusal(
        API_ERRORS.invalidDeployKey,
        'Send your remote’s deploy key: Authorization: Deploy <key>',
        challenge,
      );
    const found = KEY_PATTERN.test(key) ? await this.store.liveByHash(hashDeployKey(key)) : undefined;
    if (!found)
      throw refusal(
        API_ERRORS.invalidDeployKey,
        'This deploy key is not valid (unknown or revoked)',
        challenge,
      );
    if (found.remote !== remote) {
      throw refusal(API_ERRORS.forbiddenRemote, `This deploy key releases ${found.remote} only`);
    }
    return found;
  }
}
