/**
 * The canary's votes in Okta mode (issue 23): a holder's load report is checked as any Okta-mode API call (the org's
 * JWKS, the user read from Okta), and votes under the Okta user id (the token's `uid`, the ID token's sub: what
 * `/remotes.json` buckets by), never the login that Okta puts in the access token's `sub`. With CANARY_MIN_LOADS=1,
 * one failing holder of the canary rolls it back; a token of a user Okta no longer knows is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryBucket } from '../src/releases/canary-bucket.js';
import type { TestApp } from './helpers.js';
import { useOktaOrg } from './support/okta-org/vitest.js';
import { oktaAuthorizationServer, startOktaPortal } from './support/okta-portal.js';

const server = oktaAuthorizationServer();
const org = useOktaOrg({ jwks: server.jwks });
let t: TestApp;

beforeAll(async () => {
  t = await startOktaPortal(org(), { CANARY_MIN_LOADS: '1' });
});

afterAll(async () => {
  await t?.close();
});

let userCount = 0;
function oktaUser() {
  userCount += 1;
  const login = `holder${userCount}@customer.example`;
  const user = org().addUser({
    profile: { login, email: login, firstName: 'Holder', lastName: `${userCount}`, countryCode: 'SE' },
    password: 'Correct-Horse-1',
  });
  return { ...user, login };
}

const INTEGRITY = `sha384-${'O'.repeat(64)}`;

describe('load reports in Okta mode', () => {
  it('votes under the Okta user id, and one failing holder of the canary rolls it back at a minimum of 1', async () => {
    const remote = `remote_okta_${Date.now()}`;
    let holder = oktaUser();
    while (canaryBucket(holder.id, remote) >= 99) holder = oktaUser();
    for (const version of ['1.0.0', '2.0.0']) {
      await t.app.releases.publish(
        remote,
        {
          version,
          entry: `https://cdn.example.com/${version}/remoteEntry.js`,
          integrity: INTEGRITY,
          buildId: version,
        },
        'Team',
      );
    }
    await t.app.releases.promote(remote, { version: '1.0.0' }, 'Team');
    // Just above the user id's bucket: the holder is in; the login's bucket (Okta's access-token sub) plays no part.
    const percent = canaryBucket(holder.id, remote) + 1;
    await t.app.releases.canary(remote, { version: '2.0.0', percent }, 'Team');
    const token = await server.token(org(), holder);
    const resolved = await t.app.inject({
      url: '/remotes.json',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(resolved.json<{ remotes: Record<string, { version: string }> }>().remotes[remote]?.version).toBe(
      '2.0.0',
    );

    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/remote-loads',
      headers: { authorization: `Bearer ${token}` },
      payload: { remote, version: '2.0.0', outcome: 'failed', kind: 'render' },
    });
    expect(response.statusCode).toBe(204);
    expect(await t.app.storage.releaseVotes.tally(remote, '2.0.0')).toEqual({ holders: 1, failedHolders: 1 });
    const status = await t.app.releases.status(remote);
    expect(status.canary).toBeNull();
    expect(status.events.filter((event) => event.action === 'auto-rollback')).toHaveLength(1);
  });

  it('refuses a report whose token names a user Okta does not know (401), and counts nothing', async () => {
    const remote = `remote_okta_gone_${Date.now()}`;
    await t.app.releases.publish(
      remote,
      {
        version: '1.0.0',
        entry: 'https://cdn.example.com/1.0.0/remoteEntry.js',
        integrity: INTEGRITY,
        buildId: '1',
      },
      'Team',
    );
    const stranger = { id: '00uNobodyHere', login: 'nobody@customer.example' };
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/remote-loads',
      headers: { authorization: `Bearer ${await server.token(org(), stranger)}` },
      payload: { remote, version: '1.0.0', outcome: 'failed', kind: 'render' },
    });
    expect(response.statusCode).toBe(401);
    expect(await t.app.storage.releases.version(remote, '1.0.0')).toMatchObject({ loads: 0, failures: 0 });
  });
});
