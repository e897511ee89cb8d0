import { remotesConfigSchema } from './remotes.js';
import {
  canaryBodySchema,
  integritySchema,
  publishBodySchema,
  releaseVersionSchema,
  remoteLoadReportSchema,
  resolvedRemotesSchema,
} from './releases.js';

const INTEGRITY = `sha384-${'a'.repeat(64)}`;

describe('the releases contract', () => {
  it('answers a resolved set an old shell still reads as the remotes file', () => {
    const resolved = resolvedRemotesSchema.parse({
      remotes: {
        remote_profile: {
          entry: 'https://cdn.example.com/1.4.0/remoteEntry.js',
          integrity: INTEGRITY,
          version: '1.4.0',
          buildId: 'b1',
          channel: 'stable',
          fallback: {
            entry: 'https://cdn.example.com/1.3.0/remoteEntry.js',
            integrity: INTEGRITY,
            version: '1.3.0',
          },
        },
        remote_password: {
          entry: 'http://localhost:3002/remoteEntry.js',
          integrity: null,
          version: null,
          buildId: null,
          channel: 'bootstrap',
          fallback: null,
        },
      },
    });
    expect(remotesConfigSchema.parse(resolved)).toEqual({
      remotes: {
        remote_profile: { entry: 'https://cdn.example.com/1.4.0/remoteEntry.js' },
        remote_password: { entry: 'http://localhost:3002/remoteEntry.js' },
      },
    });
  });

  it.each(['1.4.0', '1.4.0-rc.1', '2026-11-28.3', 'v2+build_7'])('takes the version %s', (version) => {
    expect(releaseVersionSchema.safeParse(version).success).toBe(true);
  });

  it.each(['', '-1', '../1', '1 0', 'x'.repeat(65), '1/2'])('refuses the version %j', (version) => {
    expect(releaseVersionSchema.safeParse(version).success).toBe(false);
  });

  it('takes one SHA-384 integrity value only', () => {
    expect(integritySchema.safeParse(INTEGRITY).success).toBe(true);
    for (const value of [
      `sha256-${'a'.repeat(43)}=`,
      `sha384-${'a'.repeat(63)}`,
      `${INTEGRITY} ${INTEGRITY}`,
    ]) {
      expect(integritySchema.safeParse(value).success).toBe(false);
    }
  });

  it('asks a failed load for its kind, and a loaded one for none', () => {
    const failed = { remote: 'remote_profile', version: '1.4.0', outcome: 'failed' };
    expect(remoteLoadReportSchema.safeParse(failed).success).toBe(false);
    expect(remoteLoadReportSchema.safeParse({ ...failed, kind: 'integrity' }).success).toBe(true);
    expect(remoteLoadReportSchema.safeParse({ ...failed, outcome: 'loaded', version: null }).success).toBe(
      true,
    );
  });

  it('bounds the release bodies: http(s) entries only, a percentage of 1 to 99', () => {
    const publish = {
      version: '1.0.0',
      entry: 'https://cdn.example.com/remoteEntry.js',
      integrity: INTEGRITY,
      buildId: 'b',
    };
    expect(publishBodySchema.safeParse(publish).success).toBe(true);
    expect(publishBodySchema.safeParse({ ...publish, entry: 'javascript:alert(1)' }).success).toBe(false);
    expect(publishBodySchema.safeParse({ ...publish, buildId: 'x'.repeat(101) }).success).toBe(false);
    expect(canaryBodySchema.safeParse({ version: '1.0.0', percent: 1 }).success).toBe(true);
    expect(canaryBodySchema.safeParse({ version: '1.0.0', percent: 99 }).success).toBe(true);
    for (const percent of [0, 100, 10.5]) {
      expect(canaryBodySchema.safeParse({ version: '1.0.0', percent }).success).toBe(false);
    }
  });
});
