import { createLoadReporter } from './loadReports.js';

describe('the load reporter', () => {
  it('sends one report per remote, version and outcome in a page load', () => {
    const send = jest.fn();
    const report = createLoadReporter(send);
    report({ remote: 'remote_profile', version: '1.4.0', outcome: 'failed', kind: 'network' });
    report({ remote: 'remote_profile', version: '1.4.0', outcome: 'failed', kind: 'network' });
    // Another kind of the same failure is the same outcome: the page's retries count once.
    report({ remote: 'remote_profile', version: '1.4.0', outcome: 'failed', kind: 'render' });
    report({ remote: 'remote_profile', version: '1.4.0', outcome: 'loaded' });
    report({ remote: 'remote_profile', version: '1.3.0', outcome: 'failed', kind: 'network' });
    report({ remote: 'remote_password', version: '1.4.0', outcome: 'loaded' });

    expect(send.mock.calls.map(([path, body]) => [path, JSON.parse(body as string)])).toEqual([
      [
        '/api/v1/remote-loads',
        { remote: 'remote_profile', version: '1.4.0', outcome: 'failed', kind: 'network' },
      ],
      ['/api/v1/remote-loads', { remote: 'remote_profile', version: '1.4.0', outcome: 'loaded' }],
      [
        '/api/v1/remote-loads',
        { remote: 'remote_profile', version: '1.3.0', outcome: 'failed', kind: 'network' },
      ],
      ['/api/v1/remote-loads', { remote: 'remote_password', version: '1.4.0', outcome: 'loaded' }],
    ]);
  });

  it('reports a remote with no release yet with a null version', () => {
    const send = jest.fn();
    createLoadReporter(send)({ remote: 'remote_profile', version: null, outcome: 'loaded' });
    expect(JSON.parse(send.mock.calls[0]?.[1] as string)).toEqual({
      remote: 'remote_profile',
      version: null,
      outcome: 'loaded',
    });
  });

  it('sends nothing the server would refuse', () => {
    const send = jest.fn();
    createLoadReporter(send)({ remote: 'remote_profile', version: 'not a version!', outcome: 'loaded' });
    expect(send).not.toHaveBeenCalled();
  });
});
