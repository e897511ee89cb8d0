import { signInAfterSessionEnded } from './signInAfterSessionEnded.js';

describe('signInAfterSessionEnded', () => {
  it('with a return path: a new sign-in that comes back there, and nothing else', async () => {
    const signInAgain = jest.fn(() => Promise.resolve());
    const onSessionEnded = jest.fn();
    await expect(signInAfterSessionEnded({ signInAgain, onSessionEnded }, '/password')).resolves.toBe(
      'LEAVING',
    );
    expect(signInAgain).toHaveBeenCalledWith({ returnTo: '/password' });
    expect(onSessionEnded).not.toHaveBeenCalled();
  });

  it("without a return path: the host's own way (back to this page)", async () => {
    const signInAgain = jest.fn(() => Promise.resolve());
    const onSessionEnded = jest.fn();
    await expect(signInAfterSessionEnded({ signInAgain, onSessionEnded })).resolves.toBe('LEAVING');
    expect(onSessionEnded).toHaveBeenCalledTimes(1);
    expect(signInAgain).not.toHaveBeenCalled();
  });

  it('without a return path nor onSessionEnded: a new sign-in back to this page', async () => {
    const signInAgain = jest.fn(() => Promise.resolve());
    await expect(signInAfterSessionEnded({ signInAgain })).resolves.toBe('LEAVING');
    expect(signInAgain).toHaveBeenCalledWith({ returnTo: window.location.pathname });
  });

  it("a sign-in that cannot start falls back on the host's own way", async () => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const onSessionEnded = jest.fn();
    const signInAgain = jest.fn(() => Promise.reject(new Error('unreachable')));
    await expect(signInAfterSessionEnded({ signInAgain, onSessionEnded }, '/password')).resolves.toBe(
      'LEAVING',
    );
    expect(onSessionEnded).toHaveBeenCalledTimes(1);
  });

  it('a host with neither (a mount() without them): the page says what to do', async () => {
    await expect(signInAfterSessionEnded({}, '/password')).resolves.toBe('NO_WAY');
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    await expect(
      signInAfterSessionEnded({ signInAgain: () => Promise.reject(new Error('x')) }, '/password'),
    ).resolves.toBe('NO_WAY');
  });
});
