import { canVerifyStepUpCode, INVALID_CODE_MESSAGES, normaliseStepUpCode } from './codes.js';

describe('step-up code rules', () => {
  it('enables Verify for 1 to 10 characters only', () => {
    expect(canVerifyStepUpCode('googleAuth', '')).toBe(false);
    expect(canVerifyStepUpCode('googleAuth', '1')).toBe(true);
    expect(canVerifyStepUpCode('googleAuth', '1234567890')).toBe(true);
    expect(canVerifyStepUpCode('googleAuth', '12345678901')).toBe(false);
  });

  it('trims email codes before checking and sending them', () => {
    expect(normaliseStepUpCode('email', '  123456 ')).toBe('123456');
    expect(canVerifyStepUpCode('email', '   ')).toBe(false);
    expect(canVerifyStepUpCode('email', ' 1234567890 ')).toBe(true);
    expect(normaliseStepUpCode('googleAuth', ' 123456')).toBe(' 123456');
  });

  it('has the spec messages for wrong codes', () => {
    expect(INVALID_CODE_MESSAGES).toEqual({
      googleAuth: 'Invalid verification code',
      email: 'Invalid authentication code',
    });
  });
});
