import { errorAnswersOf } from './call.js';
import { ALL_API_CALLS } from './calls.js';

describe('errorAnswersOf', () => {
  it('declares 502 upstream_failed and 503 service_unavailable for every call that checks a token (the identity backend behind it), none for the public settings', () => {
    for (const call of ALL_API_CALLS) {
      const codes = errorAnswersOf(call).map((answer) => `${answer.status} ${answer.code}`);
      // A public call that checks a token when one is sent (the load reports) declares 401 and those too.
      if (call.public && !codes.includes('401 unauthorized')) {
        expect(codes).not.toContain('502 upstream_failed');
        continue;
      }
      expect(codes).toEqual(expect.arrayContaining(['502 upstream_failed', '503 service_unavailable']));
    }
  });

  it('no longer declares the shadow-account refusals of the old Okta mode', () => {
    const codes = ALL_API_CALLS.flatMap((call) => errorAnswersOf(call).map((answer) => answer.code));
    expect(codes).not.toContain('token_without_email');
    expect(codes).not.toContain('email_in_use');
  });
});
