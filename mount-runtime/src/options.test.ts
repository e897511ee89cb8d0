import { checkMountElement, checkMountOptions } from './options.js';

const valid = () => ({
  getAccessToken: () => 'token',
  user: { sub: '00u1', email: 'tess@example.org', given_name: 'Tess', family_name: 'Tester', country: 'DE' },
  apiBaseUrl: 'http://localhost:3000/',
});

describe('checkMountOptions', () => {
  it('accepts the options and normalises the API base URL', () => {
    const options = checkMountOptions({ ...valid(), isFederated: false, basePath: '/account' });
    expect(options.apiBaseUrl).toBe('http://localhost:3000');
    expect(options.user).toEqual(valid().user);
    expect(options.isFederated).toBe(false);
    expect(options.basePath).toBe('/account');
  });

  it("accepts '' as the page's own origin and an async token getter", () => {
    const getAccessToken = async () => 'token';
    expect(checkMountOptions({ ...valid(), apiBaseUrl: '', getAccessToken }).apiBaseUrl).toBe('');
  });

  it('keeps only the claims it knows from a whole ID token', () => {
    const options = checkMountOptions({ ...valid(), user: { ...valid().user, iss: 'x', amr: ['pwd'] } });
    expect(Object.keys(options.user).sort()).toEqual([
      'country',
      'email',
      'family_name',
      'given_name',
      'sub',
    ]);
  });

  it.each([
    [null, 'mount(): invalid option "options": expected an object of mount options, got null.'],
    [
      { ...valid(), getAccessToken: 'eyJhbGciOi' },
      'mount(): invalid option "getAccessToken": expected a function that returns the access token (it may be async), got the string "eyJhbGciOi".',
    ],
    [
      { ...valid(), user: undefined },
      'mount(): invalid option "user": expected the user\'s ID-token claims (an object with sub and email), got nothing.',
    ],
    [
      { ...valid(), user: { email: 'tess@example.org' } },
      'mount(): invalid option "user.sub": expected the user id (a string), got nothing.',
    ],
    [
      { ...valid(), user: { sub: '00u1', email: 'tess' } },
      'mount(): invalid option "user.email": expected an email address, got the string "tess".',
    ],
    [
      { ...valid(), user: { ...valid().user, country: 49 } },
      'mount(): invalid option "user.country": expected a string, got number 49.',
    ],
    [
      { ...valid(), apiBaseUrl: 'localhost:3000' },
      'mount(): invalid option "apiBaseUrl": expected the account API\'s origin, e.g. https://account.example.com (\'\' for this page\'s origin), got the string "localhost:3000".',
    ],
    [
      { ...valid(), apiBaseUrl: undefined },
      "mount(): invalid option \"apiBaseUrl\": expected the account API's origin, e.g. https://account.example.com ('' for this page's origin), got nothing.",
    ],
    [
      { ...valid(), isFederated: 'no' },
      'mount(): invalid option "isFederated": expected true, false or nothing (then the API is asked), got the string "no".',
    ],
    [
      { ...valid(), basePath: 'account' },
      'mount(): invalid option "basePath": expected a path that starts with \'/\', got the string "account".',
    ],
    [
      { ...valid(), flagBaseUrl: '' },
      'mount(): invalid option "flagBaseUrl": expected a URL, got an empty string.',
    ],
    [
      { ...valid(), refreshUser: true },
      'mount(): invalid option "refreshUser": expected a function that returns a promise, got boolean true.',
    ],
    [
      { ...valid(), onSessionEnded: 'sign in again' },
      'mount(): invalid option "onSessionEnded": expected a function, got the string "sign in again".',
    ],
    [
      { ...valid(), renewSession: 'silently' },
      'mount(): invalid option "renewSession": expected a function that returns a promise, got the string "silently".',
    ],
    [
      { ...valid(), signInAgain: true },
      'mount(): invalid option "signInAgain": expected a function that returns a promise, got boolean true.',
    ],
    [
      { ...valid(), apiBaseURL: 'http://localhost:3000' },
      'mount(): unknown option "apiBaseURL"; the options are getAccessToken, user, isFederated, apiBaseUrl, basePath, flagBaseUrl, refreshUser, onSessionEnded, renewSession, signInAgain.',
    ],
  ])('refuses %o with a message naming the option', (options, message) => {
    expect(() => checkMountOptions(options)).toThrow(new Error(message));
  });

  it('lets a React host pass props of its own when not strict', () => {
    expect(() => checkMountOptions({ ...valid(), basename: '/' }, { strict: false })).not.toThrow();
  });
});

describe('checkMountElement', () => {
  it('accepts an element and refuses anything else', () => {
    const element = document.createElement('div');
    expect(checkMountElement(element)).toBe(element);
    expect(() => checkMountElement('#security')).toThrow(
      'mount(): the first argument must be a DOM element to render into, got the string "#security".',
    );
    expect(() => checkMountElement(document.createTextNode('x'))).toThrow('must be a DOM element');
  });
});
