import type { RemoteMountOptions, RemoteMountUserClaims } from 'shared-auth';

// The options come from an integrator's plain JavaScript: check each one, and name the one that is wrong.

const OPTION_NAMES = [
  'getAccessToken',
  'user',
  'isFederated',
  'apiBaseUrl',
  'basePath',
  'flagBaseUrl',
  'refreshUser',
  'onSessionEnded',
  'renewSession',
  'signInAgain',
] as const satisfies readonly (keyof RemoteMountOptions)[];

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value === '' ? 'an empty string' : `the string "${value}"`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

function invalid(option: string, expected: string, value: unknown): Error {
  return new Error(`mount(): invalid option "${option}": expected ${expected}, got ${describe(value)}.`);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function optionalString(record: Record<string, unknown>, key: string, label: string): string | undefined {
  const value = record[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid(label, 'a string', value);
  return value;
}

function checkUser(value: unknown): RemoteMountUserClaims {
  if (!isRecord(value))
    throw invalid('user', "the user's ID-token claims (an object with sub and email)", value);
  const { sub, email } = value;
  if (typeof sub !== 'string' || sub.trim() === '') throw invalid('user.sub', 'the user id (a string)', sub);
  if (typeof email !== 'string' || !email.includes('@'))
    throw invalid('user.email', 'an email address', email);
  const claims: RemoteMountUserClaims = { sub, email };
  for (const key of ['given_name', 'family_name', 'name', 'country'] as const) {
    const claim = optionalString(value, key, `user.${key}`);
    if (claim !== undefined) claims[key] = claim;
  }
  return claims;
}

function checkBaseUrl(value: unknown): string {
  const expected = "the account API's origin, e.g. https://account.example.com ('' for this page's origin)";
  if (typeof value !== 'string') throw invalid('apiBaseUrl', expected, value);
  if (value === '') return '';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid('apiBaseUrl', expected, value);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('apiBaseUrl', expected, value);
  return value.replace(/\/+$/, '');
}

export interface CheckOptions {
  /** Refuse names that are not options (a typo such as apiBaseURL); off for props a React host adds. */
  strict?: boolean;
}

/**
 * The options of `mount(element, options)`, checked: a clear Error naming the first wrong option, so a
 * misconfigured page fails at once instead of rendering a page whose every call fails.
 */
export function checkMountOptions(value: unknown, { strict = true }: CheckOptions = {}): RemoteMountOptions {
  if (!isRecord(value)) throw invalid('options', 'an object of mount options', value);
  if (strict) {
    const unknown = Object.keys(value).filter((key) => !(OPTION_NAMES as readonly string[]).includes(key));
    if (unknown.length > 0) {
      throw new Error(
        `mount(): unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((key) => `"${key}"`).join(', ')}; ` +
          `the options are ${OPTION_NAMES.join(', ')}.`,
      );
    }
  }
  const { getAccessToken, isFederated, basePath, refreshUser, onSessionEnded, renewSession, signInAgain } =
    value;
  if (typeof getAccessToken !== 'function') {
    throw invalid(
      'getAccessToken',
      'a function that returns the access token (it may be async)',
      getAccessToken,
    );
  }
  const user = checkUser(value.user);
  if (isFederated !== undefined && typeof isFederated !== 'boolean')
    throw invalid('isFederated', 'true, false or nothing (then the API is asked)', isFederated);
  const apiBaseUrl = checkBaseUrl(value.apiBaseUrl);
  if (basePath !== undefined && (typeof basePath !== 'string' || !basePath.startsWith('/')))
    throw invalid('basePath', "a path that starts with '/'", basePath);
  const flagBaseUrl = optionalString(value, 'flagBaseUrl', 'flagBaseUrl');
  if (flagBaseUrl === '') throw invalid('flagBaseUrl', 'a URL', flagBaseUrl);
  if (refreshUser !== undefined && typeof refreshUser !== 'function')
    throw invalid('refreshUser', 'a function that returns a promise', refreshUser);
  if (onSessionEnded !== undefined && typeof onSessionEnded !== 'function')
    throw invalid('onSessionEnded', 'a function', onSessionEnded);
  if (renewSession !== undefined && typeof renewSession !== 'function')
    throw invalid('renewSession', 'a function that returns a promise', renewSession);
  if (signInAgain !== undefined && typeof signInAgain !== 'function')
    throw invalid('signInAgain', 'a function that returns a promise', signInAgain);

  const options: RemoteMountOptions = {
    getAccessToken: getAccessToken as RemoteMountOptions['getAccessToken'],
    user,
    apiBaseUrl,
  };
  if (isFederated !== undefined) options.isFederated = isFederated;
  if (basePath !== undefined) options.basePath = basePath;
  if (flagBaseUrl !== undefined) options.flagBaseUrl = flagBaseUrl;
  if (refreshUser !== undefined) options.refreshUser = refreshUser as RemoteMountOptions['refreshUser'];
  if (onSessionEnded !== undefined)
    options.onSessionEnded = onSessionEnded as RemoteMountOptions['onSessionEnded'];
  if (renewSession !== undefined) options.renewSession = renewSession as RemoteMountOptions['renewSession'];
  if (signInAgain !== undefined) options.signInAgain = signInAgain as RemoteMountOptions['signInAgain'];
  return options;
}

/** The element to mount into: any DOM element (checked by shape, so elements of other frames pass too). */
export function checkMountElement(value: unknown): HTMLElement {
  if (!isRecord(value) || (value as { nodeType?: unknown }).nodeType !== 1) {
    throw new Error(
      `mount(): the first argument must be a DOM element to render into, got ${describe(value)}.`,
    );
  }
  return value as unknown as HTMLElement;
}

export { OPTION_NAMES };
