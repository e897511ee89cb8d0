import { act, renderHook } from '@testing-library/react';
import { ApiError } from '../api-client.js';
import { useCall } from './useCall.js';

/** A call whose answer the test gives, and the signal each run got. */
function controlled<T>() {
  const runs: { signal: AbortSignal; resolve: (value: T) => void; reject: (error: unknown) => void }[] = [];
  const call = jest.fn(
    (signal: AbortSignal) =>
      new Promise<T>((resolve, reject) => {
        runs.push({ signal, resolve, reject });
      }),
  );
  return { call, runs };
}

describe('useCall', () => {
  it('goes idle → pending → success, and run resolves to the data', async () => {
    const { call, runs } = controlled<string>();
    const { result } = renderHook(() => useCall(call));
    expect(result.current.status).toBe('idle');
    let outcome: Promise<unknown> = Promise.resolve();
    act(() => {
      outcome = result.current.run();
    });
    expect(result.current.status).toBe('pending');
    await act(async () => {
      runs[0]?.resolve('done');
      await outcome;
    });
    await expect(outcome).resolves.toEqual({ status: 'success', data: 'done' });
    expect(result.current).toMatchObject({ status: 'success', data: 'done' });
  });

  it('goes pending → error with the failure read once', async () => {
    const { call, runs } = controlled<string>();
    const { result } = renderHook(() => useCall(call));
    let outcome: Promise<unknown> = Promise.resolve();
    act(() => {
      outcome = result.current.run();
    });
    const error = new ApiError('Too many wrong codes. Try again in 1 minute.', 429);
    await act(async () => {
      runs[0]?.reject(error);
      await outcome;
    });
    await expect(outcome).resolves.toMatchObject({ status: 'error', error, failure: { kind: 'throttled' } });
    expect(result.current.status).toBe('error');
  });

  it('a new run aborts the one under way, whose answer is not acted on', async () => {
    const { call, runs } = controlled<string>();
    const { result } = renderHook(() => useCall(call));
    let first: Promise<unknown> = Promise.resolve();
    act(() => {
      first = result.current.run();
    });
    act(() => {
      void result.current.run();
    });
    expect(runs[0]?.signal.aborted).toBe(true);
    expect(runs[1]?.signal.aborted).toBe(false);
    await act(async () => {
      runs[0]?.resolve('late');
      await first;
    });
    await expect(first).resolves.toEqual({ status: 'aborted' });
    expect(result.current.status).toBe('pending');
  });

  it('abort() ends the run and returns to idle', async () => {
    const { call, runs } = controlled<string>();
    const { result } = renderHook(() => useCall(call));
    let outcome: Promise<unknown> = Promise.resolve();
    act(() => {
      outcome = result.current.run();
    });
    act(() => result.current.abort());
    expect(runs[0]?.signal.aborted).toBe(true);
    expect(result.current.status).toBe('idle');
    await act(async () => {
      runs[0]?.reject(new DOMException('aborted', 'AbortError'));
      await outcome;
    });
    await expect(outcome).resolves.toEqual({ status: 'aborted' });
  });

  it('the unmount aborts the run, unless the call must run to its end', () => {
    const aborting = controlled<string>();
    const first = renderHook(() => useCall(aborting.call));
    act(() => void first.result.current.run());
    first.unmount();
    expect(aborting.runs[0]?.signal.aborted).toBe(true);

    const kept = controlled<string>();
    const second = renderHook(() => useCall(kept.call, { abortOnUnmount: false }));
    act(() => void second.result.current.run());
    second.unmount();
    expect(kept.runs[0]?.signal.aborted).toBe(false);
  });

  it('passes the run arguments after the signal, and uses the latest call', async () => {
    const calls: string[] = [];
    const { result, rerender } = renderHook(
      ({ tag }) => useCall(async (_signal, x: number) => `${tag}${x}`),
      {
        initialProps: { tag: 'a' },
      },
    );
    rerender({ tag: 'b' });
    await act(async () => {
      const outcome = await result.current.run(7);
      if (outcome.status === 'success') calls.push(outcome.data);
    });
    expect(calls).toEqual(['b7']);
  });
});
