/** The embedded backend's passwords: argon2id hashes in the portal's directory (`users`). */
import { performance } from 'node:perf_hooks';
import { API_ERRORS, PASSWORD_CHANGE_ERRORS } from 'shared-auth/contract';
import { Directory, hashPassword, passwordMatches } from '../../directory/directory.js';
import { refusal } from '../../http/errors.js';
import type { Storage } from '../../storage/index.js';
import type { IdentityPasswords, PasswordChange, PasswordCheck } from '../passwords.js';

export class EmbeddedPasswords implements IdentityPasswords {
  readonly canCheckPasswords = true;
  private readonly directory: Directory;

  constructor(
    storage: Storage,
    private readonly now: () => number,
  ) {
    this.directory = new Directory(storage.users);
  }

  private async check(
    userId: string,
    password: string,
    beforeCheck: () => Promise<void>,
  ): Promise<PasswordCheck & { hash: string }> {
    const hash = await this.directory.passwordHashOf(userId);
    if (hash === undefined) throw refusal(API_ERRORS.notFound, 'The account no longer exists');
    if (hash === null) throw refusal(API_ERRORS.noLocalPassword, PASSWORD_CHANGE_ERRORS.noLocalPassword);
    await beforeCheck();
    const started = performance.now();
    const matches = await passwordMatches(hash, password);
    return { matches, verifyMs: performance.now() - started, hash };
  }

  async verifyPassword(
    userId: string,
    password: string,
    beforeCheck: () => Promise<void>,
  ): Promise<PasswordCheck> {
    const { matches, verifyMs } = await this.check(userId, password, beforeCheck);
    return { matches, verifyMs };
  }

  /** argon2 runs here, before the caller's transaction; `commit` only swaps the hash (compare-and-set). */
  async changePassword(
    userId: string,
    oldPassword: string,
    newPassword: string,
    beforeCheck: () => Promise<void>,
  ): Promise<PasswordChange> {
    const { matches, verifyMs, hash: currentHash } = await this.check(userId, oldPassword, beforeCheck);
    if (!matches) return { matches: false, verifyMs };
    const started = performance.now();
    const newHash = await hashPassword(newPassword);
    const hashMs = performance.now() - started;
    return {
      matches: true,
      verifyMs,
      hashMs,
      commit: async (tx) => {
        const now = new Date(this.now()).toISOString();
        if (!(await tx.users.replacePasswordHash(userId, currentHash, newHash, now))) {
          // Another change of this user's password committed while this one was hashing.
          throw refusal(
            API_ERRORS.concurrentChange,
            'The password was changed by another request meanwhile. Use the new current password and try again.',
          );
        }
      },
    };
  }
}
