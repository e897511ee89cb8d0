import { act, renderHook } from '@testing-library/react';
import type { FormEvent, ReactNode } from 'react';
import { ApiError, AuthProvider, createApiClient, type PortalAuth } from 'shared-auth';
import * as factorsApi from '../api/factorsApi.js';
import type { ReauthenticationGuard } from '../../../lib/reauthentication/useConfirmItsYou.js';
import { useCodeActivation } from './useCodeActivation.js';

jest.mock('../api/factorsApi.js');
const api = jest.mocked(factorsApi);

const auth: PortalAuth = {
  user: {
    sub: '00u1',
    email: 'tess@example.org',
    givenName: 'Tess',
    familyName: 'Tester',
    name: 'Tess Tester',
    country: 'DE',
  },
  isFederated: false,
  getAccessToken: () => 'token',
  apiBaseUrl: '',
  apiClient: createApiClient({ baseUrl: '', getAccessToken: () => 'token' }),
  flagBaseUrl: '/flags/4x3',
  refreshUser: () => Promise.resolve(),
};
const wrapper = ({ children }: { children: ReactNode }) => (
  <AuthProvider value={auth}>{children}</AuthProvider>
);
const submit = { preventDefault: () => undefined } as FormEvent;

function renderActivation(guard = <T,>(call: () => Promise<T>) => call()) {
  const onActivated = jest.fn();
  const onFailed = jest.fn();
  const { result } = renderHook(
    () =>
      useCodeActivation({
        factor: 'email',
        wrongCodeMessage: 'Invalid verification code',
        onActivated,
        onFailed,
        guard,
      }),
    { wrapper },
  );
  act(() => result.current.setCode(' 123456 '));
  return { result, onActivated, onFailed };
}

describe('useCodeActivation', () => {
  it('activates with the trimmed code and reports the enrolment date', async () => {
    api.activate.mockResolvedValue({
      ok: true,
      status: { status: 'ACTIVE', enrolledDate: '2026-11-22T00:00:00.000Z' },
    });
    const { result, onActivated, onFailed } = renderActivation();
    await act(() => result.current.verify(submit));
    expect(api.activate).toHaveBeenCalledWith(expect.anything(), 'email', '00u1', '123456', {
      signal: expect.any(AbortSignal),
    });
    expect(onActivated).toHaveBeenCalledWith('2026-11-22T00:00:00.000Z');
    expect(onFailed).not.toHaveBeenCalled();
  });

  it('sends the activation through the guard, which may ask for the password first', async () => {
    api.activate.mockResolvedValue({ ok: true, status: { status: 'ACTIVE', enrolledDate: null } });
    const guard = jest.fn((call: () => Promise<unknown>) => call());
    const { result, onActivated } = renderActivation(guard as ReauthenticationGuard);
    await act(() => result.current.verify(submit));
    expect(guard).toHaveBeenCalledTimes(1);
    expect(api.activate).toHaveBeenCalledTimes(1);
    expect(onActivated).toHaveBeenCalledWith(null);
  });

  it('says a wrong code is wrong, and shows the throttle message of a 429 beside the field', async () => {
    const { result, onFailed } = renderActivation();
    api.activate.mockResolvedValueOnce({ ok: false });
    await act(() => result.current.verify(submit));
    expect(result.current.error).toBe('Invalid verification code');
    api.activate.mockRejectedValueOnce(
      new ApiError('Too many wrong codes. For your security, try again in 5 minutes.', 429, 'rate_limited'),
    );
    await act(() => result.current.verify(submit));
    expect(result.current.error).toBe('Too many wrong codes. For your security, try again in 5 minutes.');
    expect(result.current.verifying).toBe(false);
    expect(onFailed).not.toHaveBeenCalled();
  });

  it('hands any other failure to onFailed', async () => {
    const { result, onFailed } = renderActivation();
    const failure = new ApiError('down', 503);
    api.activate.mockRejectedValue(failure);
    await act(() => result.current.verify(submit));
    expect(onFailed).toHaveBeenCalledWith(failure);
    expect(result.current.error).toBeUndefined();
  });
});
