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
    expect(INVALID_CODE_MESSAGES).toMatchObject({
      googleAuth: 'Invalid verification code',
      email: 'Invalid authentication code',
    });
  });
});

describe('recovery code rules', () => {
  it('enables Verify for a code of the right shape: with or without the dash, any case, spaces trimmed', () => {
    for (const typed of ['ABCDE-FGHJK', 'abcdefghjk', '  abcde-fghjk ', 'abcde fghjk']) {
      expect(canVerifyStepUpCode('recoveryCode', typed)).toBe(true);
    }
    for (const typed of ['', '   ', 'ABCDE-FGHJ', 'ABCDE-FGHJKM', 'ABCDE-FGHJ!', '123456']) {
      expect(canVerifyStepUpCode('recoveryCode', typed)).toBe(false);
    }
  });

  it('sends the code as XXXXX-XXXXX', () => {
    expect(normaliseStepUpCode('recoveryCode', ' abcde fghjk ')).toBe('ABCDE-FGHJK');
    expect(normaliseStepUpCode('recoveryCode', 'abcdefghjk')).toBe('ABCDE-FGHJK');
  });

  it('has its own wrong-code text, which says a code works once', () => {
    expect(INVALID_CODE_MESSAGES.recoveryCode).toBe('Invalid recovery code. Each code works once.');
  });
});
