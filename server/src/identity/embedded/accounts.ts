/** The embedded backend's accounts: the portal's own directory (`users`). */
import { Directory } from '../../directory/directory.js';
import type { Storage } from '../../storage/index.js';
import type { ProfileChanges, User } from '../../storage/users.js';
import type { IdentityAccounts } from '../accounts.js';

export class EmbeddedAccounts implements IdentityAccounts {
  private readonly directory: Directory;

  constructor(storage: Storage) {
    this.directory = new Directory(storage.users);
  }

  findById(userId: string): Promise<User | undefined> {
    return this.directory.findById(userId);
  }

  async findCaller(userId: string): Promise<{ user: User | undefined; cached: boolean }> {
    return { user: await this.directory.findById(userId), cached: false };
  }

  updateProfile(userId: string, changes: ProfileChanges): Promise<User | undefined> {
    return this.directory.updateProfile(userId, changes);
  }
}
