// A passkey authenticator for a page, through the Chrome DevTools Protocol's WebAuthn domain: Chromium's own
// WebAuthn stack runs the ceremonies (origin and RP ID binding, user verification, the signature counter), with a
// software authenticator in place of a fingerprint reader or a security key.
import type { CDPSession, Page } from '@playwright/test';

export interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
}

export class VirtualAuthenticator {
  private constructor(
    private readonly cdp: CDPSession,
    readonly id: string,
  ) {}

  /**
   * Adds an authenticator to `page`'s tab: a platform one (a laptop's fingerprint reader) by default, or a USB
   * security key. It verifies the user and confirms presence by itself unless told otherwise.
   */
  static async add(
    page: Page,
    options: { transport?: 'internal' | 'usb'; userVerified?: boolean } = {},
  ): Promise<VirtualAuthenticator> {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        ctap2Version: 'ctap2_1',
        transport: options.transport ?? 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: options.userVerified ?? true,
        automaticPresenceSimulation: true,
      },
    });
    return new VirtualAuthenticator(cdp, authenticatorId);
  }

  /** What the holder's fingerprint does next time: verified, or refused. */
  async setUserVerified(isUserVerified: boolean): Promise<void> {
    await this.cdp.send('WebAuthn.setUserVerified', { authenticatorId: this.id, isUserVerified });
  }

  async credentials(): Promise<VirtualCredential[]> {
    const { credentials } = await this.cdp.send('WebAuthn.getCredentials', { authenticatorId: this.id });
    return credentials as VirtualCredential[];
  }

  /** The same passkey on another device of the holder's (a synced passkey): its key and counter copied here. */
  async addCredential(credential: VirtualCredential): Promise<void> {
    await this.cdp.send('WebAuthn.addCredential', { authenticatorId: this.id, credential });
  }

  async remove(): Promise<void> {
    await this.cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: this.id });
    await this.cdp.detach();
  }
}
