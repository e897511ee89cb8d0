/**
 * The settings file's Domain against PUBLIC_URL and IDENTITY_BACKEND: a Domain that contradicts them stops the
 * start-up with a message naming both settings and their values, before anything else is checked. The trap it
 * closes: a second instance on another origin left with the default settings file (Domain http://localhost:3000)
 * used to fall into Okta mode and stop asking for OKTA_CLIENT_ID, a setting the operator never meant to use.
 * Builds no storage: only the configuration loader runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, REPO_ROOT } from '../src/config/index.js';

const dir = mkdtempSync(path.join(tmpdir(), 'settings-domain-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DEFAULT_SETTINGS_FILE = path.join(REPO_ROOT, 'config', 'settings.json');
const HTTPS_PORTAL = 'https://account.example.com';
const OKTA_ORG = 'https://dev-123456.okta.com';

/** A settings file whose Domain is `domain`. */
function settingsWith(domain: string): string {
  const file = path.join(dir, `settings-${encodeURIComponent(domain)}.json`);
  writeFileSync(file, JSON.stringify({ Domain: domain, ClientId: 'account-portal' }));
  return file;
}

/** An https deployment's remotes file (the default one is refused with an https PUBLIC_URL). */
function httpsRemotes(): string {
  const file = path.join(dir, 'https-remotes.json');
  writeFileSync(
    file,
    JSON.stringify({ remotes: { remote_profile: { entry: 'https://cdn.example/profile/remoteEntry.js' } } }),
  );
  return file;
}

/** The ConfigError's message of a start with `source` (the test fails when it starts). */
function refusal(source: NodeJS.ProcessEnv): string {
  try {
    loadConfig(source);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`started with ${JSON.stringify(source)}`);
}

describe('a Domain that is not PUBLIC_URL, with IDENTITY_BACKEND unset and no Okta credentials', () => {
  it('stops a second instance on another origin left with the default settings file, naming both', () => {
    const message = refusal({ PUBLIC_URL: 'http://localhost:4000' });
    expect(message).toMatch(/^SETTINGS_FILE \(.*\): Domain \(http:\/\/localhost:3000\) is not PUBLIC_URL/);
    expect(message).toContain(DEFAULT_SETTINGS_FILE);
    expect(message).toContain('PUBLIC_URL (http://localhost:4000)');
    // It says what to do, both ways, and no longer asks for an Okta credential nobody meant to use.
    expect(message).toContain('set Domain to http://localhost:4000');
    expect(message).toContain('IDENTITY_BACKEND=okta');
    expect(message).not.toContain('needs OKTA_CLIENT_ID');
  });

  it('stops on the same Domain mismatch before a development surface asked for by name', () => {
    expect(refusal({ PUBLIC_URL: 'http://localhost:4000', DEV_MAILBOX: 'true' })).toMatch(
      /^SETTINGS_FILE \(.*\): Domain \(http:\/\/localhost:3000\) is not PUBLIC_URL \(http:\/\/localhost:4000\)/,
    );
  });

  it('stops an Okta org named without IDENTITY_BACKEND or any OKTA_* setting, naming both', () => {
    const message = refusal({ SETTINGS_FILE: settingsWith(OKTA_ORG) });
    expect(message).toMatch(
      new RegExp(
        `^SETTINGS_FILE \\(.*\\): Domain \\(${OKTA_ORG}\\) is not PUBLIC_URL \\(http://localhost:3000\\)`,
      ),
    );
    expect(message).toContain('IDENTITY_BACKEND=okta');
  });
});

describe("a Domain on the visitor's own machine for a portal that is not", () => {
  it.each([
    ['IDENTITY_BACKEND unset', {}],
    ['IDENTITY_BACKEND unset, Okta credentials set', { OKTA_API_TOKEN: 'test-token' }],
    ['IDENTITY_BACKEND=okta', { IDENTITY_BACKEND: 'okta', OKTA_API_TOKEN: 'test-token' }],
  ])('stops an https deployment left with the default settings file (%s)', (_name, env) => {
    const message = refusal({ PUBLIC_URL: HTTPS_PORTAL, REMOTES_FILE: httpsRemotes(), ...env });
    expect(message).toMatch(
      new RegExp(
        `^SETTINGS_FILE \\(.*\\): Domain \\(http://localhost:3000\\) is not PUBLIC_URL \\(${HTTPS_PORTAL}\\)`,
      ),
    );
    expect(message).toContain(DEFAULT_SETTINGS_FILE);
    expect(message).toContain("on the visitor's own machine");
  });
});

describe('IDENTITY_BACKEND that contradicts the Domain', () => {
  it('embedded with another Domain: names IDENTITY_BACKEND, Domain and PUBLIC_URL with their values', () => {
    const message = refusal({
      SETTINGS_FILE: settingsWith(OKTA_ORG),
      IDENTITY_BACKEND: 'embedded',
      PUBLIC_URL: 'http://localhost:4000',
    });
    expect(message).toMatch(/^IDENTITY_BACKEND=embedded /);
    expect(message).toContain(`Domain (${OKTA_ORG})`);
    expect(message).toContain('PUBLIC_URL (http://localhost:4000)');
  });

  it('okta with Domain = PUBLIC_URL: names IDENTITY_BACKEND, Domain and PUBLIC_URL with their values', () => {
    const message = refusal({ IDENTITY_BACKEND: 'okta', OKTA_API_TOKEN: 'test-token' });
    expect(message).toMatch(/^IDENTITY_BACKEND=okta /);
    expect(message).toContain('Domain (http://localhost:3000)');
    expect(message).toContain('PUBLIC_URL (http://localhost:3000)');
  });
});

describe('what still starts', () => {
  it('embedded: every instance with Domain = its own PUBLIC_URL', () => {
    for (const publicUrl of ['http://localhost:3000', 'http://localhost:4000', HTTPS_PORTAL]) {
      const config = loadConfig({
        PUBLIC_URL: publicUrl,
        SETTINGS_FILE: settingsWith(publicUrl),
        ...(publicUrl.startsWith('https:') ? { REMOTES_FILE: httpsRemotes() } : {}),
      });
      expect(config).toMatchObject({ embedded: true, identityBackend: 'embedded' });
    }
  });

  it('okta: an org with IDENTITY_BACKEND=okta, or with its credentials and IDENTITY_BACKEND unset', () => {
    const org = settingsWith(OKTA_ORG);
    const remotes = httpsRemotes();
    for (const env of [
      { IDENTITY_BACKEND: 'okta', OKTA_API_TOKEN: 'test-token' },
      { OKTA_API_TOKEN: 'test-token' },
    ]) {
      const config = loadConfig({
        PUBLIC_URL: HTTPS_PORTAL,
        REMOTES_FILE: remotes,
        SETTINGS_FILE: org,
        ...env,
      });
      expect(config).toMatchObject({ embedded: false, identityBackend: 'okta' });
    }
  });

  it('okta: an org on localhost for a portal on localhost (the Okta org stand-in)', () => {
    const config = loadConfig({
      PUBLIC_URL: 'http://localhost:3400',
      SETTINGS_FILE: settingsWith('http://localhost:3401'),
      IDENTITY_BACKEND: 'okta',
      OKTA_API_TOKEN: 'test-token',
    });
    expect(config).toMatchObject({ embedded: false, identityBackend: 'okta' });
  });
});
