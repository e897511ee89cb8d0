import { act, render, screen } from '@testing-library/react';
import type { ApiClient } from '../api-client.js';
import { useIsFederated } from './federated.js';

/** A client whose isfederated calls wait until the test answers them. */
function pendingClient() {
  const calls: { url: string; signal: AbortSignal; answer: (data: unknown) => void; fail: () => void }[] = [];
  const client = {
    request: jest.fn(
      ({ url, signal }: { url: string; signal: AbortSignal }) =>
        new Promise((resolve, reject) =>
          calls.push({
            url,
            signal,
            answer: (data) => resolve({ status: 200, data }),
            fail: () => reject(new Error('The account service could not be reached')),
          }),
        ),
    ),
  };
  return { client: client as unknown as ApiClient, calls };
}

function Flag({ client, sub, known }: { client: ApiClient; sub: string; known?: boolean }) {
  const isFederated = useIsFederated(client, sub, known);
  return <p>{isFederated === undefined ? 'checking' : isFederated ? 'federated' : 'local'}</p>;
}

describe('useIsFederated', () => {
  it('asks the API for the user, and shows nothing known until it answers', async () => {
    const { client, calls } = pendingClient();
    render(<Flag client={client} sub="00u1" />);
    expect(screen.getByText('checking')).toBeInTheDocument();
    expect(calls[0]?.url).toBe('/api/profile/00u1/isfederated');
    await act(async () => calls[0]?.answer({ isFederated: true }));
    expect(screen.getByText('federated')).toBeInTheDocument();
  });

  it('counts a failed call as not federated', async () => {
    const { client, calls } = pendingClient();
    render(<Flag client={client} sub="00u1" />);
    await act(async () => calls[0]?.fail());
    expect(screen.getByText('local')).toBeInTheDocument();
  });

  it('takes a known flag without asking', () => {
    const { client } = pendingClient();
    render(<Flag client={client} sub="00u1" known />);
    expect(screen.getByText('federated')).toBeInTheDocument();
    expect(client.request).not.toHaveBeenCalled();
  });

  it("aborts the call of a user who is gone, and never shows that user's answer", async () => {
    const { client, calls } = pendingClient();
    const view = render(<Flag client={client} sub="00u1" />);
    view.rerender(<Flag client={client} sub="00u2" />);
    expect(calls[0]?.signal.aborted).toBe(true);
    await act(async () => calls[0]?.answer({ isFederated: true }));
    expect(screen.getByText('checking')).toBeInTheDocument();
    await act(async () => calls[1]?.answer({ isFederated: false }));
    expect(screen.getByText('local')).toBeInTheDocument();
    view.unmount();
    expect(calls[1]?.signal.aborted).toBe(true);
  });
});
