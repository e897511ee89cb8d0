/**
 * The embedded identity backend: accounts and argon2id passwords in the portal's directory (`users`), 2-step
 * factors in `user_factors` (RFC 6238 TOTP with the secret sealed by SecretBox, the last accepted step kept so a
 * code is used once), and email codes it mails itself (EmailCodes). One object over its three parts
 * (accounts.ts, passwords.ts, factors.ts). Everything is in the portal's database, so it takes part in the
 * services' transactions (`inTransaction`).
 */
import type { FactorName } from 'shared-auth/contract';
import type { Storage } from '../../storage/index.js';
import type { ProfileChanges, User } from '../../storage/users.js';
import type { IdentityBackend } from '../types.js';
import { EmbeddedAccounts } from './accounts.js';
import { EmbeddedFactors, type EmbeddedFactorsOptions } from './factors.js';
import { EmbeddedPasswords } from './passwords.js';

/** The portal's database (users, factors, email codes), the authenticator secrets' box, the email codes. */
export type EmbeddedIdentityOptions = EmbeddedFactorsOptions;

export class EmbeddedIdentity implements IdentityBackend {
  readonly kind = 'embedded' as const;
  readonly factorTurnOff = 'keeps' as const;
  readonly canCheckPasswords = true;
  private readonly accounts: EmbeddedAccounts;
  private readonly passwords: EmbeddedPasswords;
  private readonly factors: EmbeddedFactors;

  constructor(private readonly options: EmbeddedIdentityOptions) {
    this.accounts = new EmbeddedAccounts(options.storage);
    this.passwords = new EmbeddedPasswords(options.storage, options.now);
    this.factors = new EmbeddedFactors(options);
  }

  inTransaction(tx: Storage): EmbeddedIdentity {
    return new EmbeddedIdentity({ ...this.options, storage: tx });
  }

  // The three parts, one object (the routes and services each use theirs).
  findById = (userId: string) => this.accounts.findById(userId);
  findCaller = (userId: string) => this.accounts.findCaller(userId);
  updateProfile = (userId: string, changes: ProfileChanges) => this.accounts.updateProfile(userId, changes);

  verifyPassword: IdentityBackend['verifyPassword'] = (...args) => this.passwords.verifyPassword(...args);
  changePassword: IdentityBackend['changePassword'] = (...args) => this.passwords.changePassword(...args);

  listFactors = (userId: string) => this.factors.listFactors(userId);
  enrol = (user: User, type: FactorName) => this.factors.enrol(user, type);
  enrollAuthenticator = (user: User) => this.factors.enrollAuthenticator(user);
  enrollEmail = (user: User) => this.factors.enrollEmail(user);
  activate = (userId: string, type: FactorName, code: string) => this.factors.activate(userId, type, code);
  sendVerificationEmail = (user: User) => this.factors.sendVerificationEmail(user);
  verify = (userId: string, type: FactorName, code: string) => this.factors.verify(userId, type, code);
  setEnabled = (userId: string, type: FactorName, enabled: boolean) =>
    this.factors.setEnabled(userId, type, enabled);
  remove = (userId: string, type: FactorName) => this.factors.remove(userId, type);
  /** Housekeeping: the email codes expired by now. */
  pruneCodes = () => this.factors.pruneCodes();
}
