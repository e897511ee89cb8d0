import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEventLib, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { useApiClient, useAuth, type RemoteMountOptions } from 'shared-auth';
import { App, Button } from 'shared-ui';
import { createRemoteMount } from './createRemoteMount.js';

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });

/** A page that shows what it reads from shared-auth, like the real ones do. */
function TestPage() {
  const auth = useAuth();
  const client = useApiClient();
  const { notification } = App.useApp();
  return (
    <section aria-label="Test page">
      <h1>Security</h1>
      <p>
        {auth.user.name} ({auth.user.email}, {auth.user.country})
      </p>
      <p>{auth.isFederated ? 'federated' : 'local'}</p>
      <p>API at {auth.apiBaseUrl}</p>
      <p>Flags at {auth.flagBaseUrl}</p>
      <Button
        onClick={async () => {
          await auth.refreshUser();
          notification.success({ title: `Token ${String(await auth.getAccessToken())}` });
        }}
      >
        Refresh
      </Button>
      <Button
        onClick={() =>
          client.request({ method: 'GET', url: '/api/profile/00u1/isfederated' }).catch(() => undefined)
        }
      >
        Call the API
      </Button>
      {auth.signInAgain ? (
        <Button onClick={() => void auth.signInAgain?.({ returnTo: '/security' })}>Sign in again</Button>
      ) : null}
    </section>
  );
}

const { mount, provider } = createRemoteMount(TestPage, { name: 'remote_test', label: 'Security' });

function options(overrides: Partial<RemoteMountOptions> = {}): RemoteMountOptions {
  return {
    getAccessToken: async () => 'access-token',
    user: {
      sub: '00u1',
      email: 'tess@example.org',
      given_name: 'Tess',
      family_name: 'Tester',
      country: 'de',
    },
    apiBaseUrl: 'http://localhost:3000',
    isFederated: false,
    ...overrides,
  };
}

/** An account API on a free port; `answer` handles each call (CORS is answered for it). */
async function startApi(answer: (request: http.IncomingMessage, response: http.ServerResponse) => void) {
  const calls: { method?: string; url?: string; authorization?: string }[] = [];
  const api = http.createServer((request, response) => {
    response.setHeader('Access-Control-Allow-Origin', '*');
    response.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
    response.setHeader('Access-Control-Expose-Headers', 'WWW-Authenticate');
    if (request.method === 'OPTIONS') return void response.writeHead(204).end();
    calls.push({ method: request.method, url: request.url, authorization: request.headers.authorization });
    answer(request, response);
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apis.push(api);
  return { apiBaseUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`, calls };
}

const apis: http.Server[] = [];
afterEach(async () => {
  await Promise.all(
    apis.splice(0).map((api) => {
      api.closeAllConnections();
      return new Promise<void>((resolve) => api.close(() => resolve()));
    }),
  );
});

const json = (response: http.ServerResponse, status: number, body: unknown) =>
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));

let element: HTMLElement;
beforeEach(() => {
  element = document.createElement('div');
  document.body.append(element);
});
afterEach(() => element.remove());

async function mountInto(target: HTMLElement, values: RemoteMountOptions) {
  let unmount: () => void = () => undefined;
  await act(async () => {
    unmount = mount(target, values);
  });
  return unmount;
}

describe('mount()', () => {
  it('renders the page into the element with the user, API and flags from the options', async () => {
    const { apiBaseUrl, calls } = await startApi((_request, response) => json(response, 500, {}));
    const unmount = await mountInto(element, options({ apiBaseUrl }));
    const page = within(element).getByRole('region', { name: 'Test page' });
    expect(within(page).getByRole('heading', { level: 1, name: 'Security' })).toBeInTheDocument();
    expect(page).toHaveTextContent('Tess Tester (tess@example.org, DE)');
    expect(page).toHaveTextContent('local');
    expect(page).toHaveTextContent(`API at ${apiBaseUrl}`);
    expect(page).toHaveTextContent(`Flags at ${apiBaseUrl}/flags/4x3`);
    expect(calls).toEqual([]);
    act(() => unmount());
  });

  it('themes the page and gives it antd App context; calls the token getter and refreshUser', async () => {
    const refreshUser = jest.fn(() => Promise.resolve());
    const unmount = await mountInto(element, options({ refreshUser }));
    await userEvent.click(within(element).getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByText('Token access-token')).toBeInTheDocument();
    expect(refreshUser).toHaveBeenCalledTimes(1);
    act(() => unmount());
  });

  it("hands the integrator's signInAgain to the page, and offers none without it", async () => {
    const signInAgain = jest.fn(() => Promise.resolve());
    let unmount = await mountInto(element, options({ signInAgain }));
    await userEvent.click(within(element).getByRole('button', { name: 'Sign in again' }));
    expect(signInAgain).toHaveBeenCalledWith({ returnTo: '/security' });
    act(() => unmount());
    unmount = await mountInto(element, options());
    expect(within(element).queryByRole('button', { name: 'Sign in again' })).not.toBeInTheDocument();
    act(() => unmount());
  });

  it("tells the integrator's page when the API refuses the token (the session ended elsewhere)", async () => {
    // An account API whose answer is the one a session ended elsewhere gets.
    const { apiBaseUrl } = await startApi((_request, response) => {
      response.writeHead(401, {
        'Content-Type': 'application/json',
        'WWW-Authenticate': 'Bearer error="invalid_token", error_description="session ended"',
      });
      response.end(
        JSON.stringify({ error: 'The sign-in session of this access token has ended; sign in again' }),
      );
    });
    const onSessionEnded = jest.fn();
    const unmount = await mountInto(element, options({ apiBaseUrl, onSessionEnded }));
    await userEvent.click(within(element).getByRole('button', { name: 'Call the API' }));
    await waitFor(() => expect(onSessionEnded).toHaveBeenCalledTimes(1));
    act(() => unmount());
  });

  it("renews through the integrator's renewSession once for concurrent refusals, then the calls go through", async () => {
    // The grant of `old` ended (a password change); the integrator's renewal gives a live token.
    const { apiBaseUrl, calls } = await startApi((request, response) => {
      if (request.headers.authorization === 'Bearer renewed')
        return json(response, 200, { isFederated: false });
      response.writeHead(401, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
      response.end(
        JSON.stringify({ error: 'The sign-in session of this access token has ended; sign in again' }),
      );
    });
    let token = 'old';
    let release!: () => void;
    const renewSession = jest.fn(() =>
      new Promise<void>((done) => (release = done)).then(() => void (token = 'renewed')),
    );
    const onSessionEnded = jest.fn();
    const unmount = await mountInto(
      element,
      options({ apiBaseUrl, getAccessToken: () => token, renewSession, onSessionEnded }),
    );
    const button = within(element).getByRole('button', { name: 'Call the API' });
    await userEvent.click(button);
    await userEvent.click(button);
    await waitFor(() => expect(calls.filter((call) => call.authorization === 'Bearer old')).toHaveLength(2));
    // The server has both requests; their refusals reach the client a moment later.
    await waitFor(() => expect(renewSession).toHaveBeenCalledTimes(1));
    release();
    await waitFor(() =>
      expect(calls.filter((call) => call.authorization === 'Bearer renewed')).toHaveLength(2),
    );
    expect(renewSession).toHaveBeenCalledTimes(1);
    expect(onSessionEnded).not.toHaveBeenCalled();
    act(() => unmount());
  });

  it('tells the integrator the session ended when its renewSession fails', async () => {
    const { apiBaseUrl } = await startApi((_request, response) => {
      response.writeHead(401, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
      response.end(
        JSON.stringify({ error: 'The sign-in session of this access token has ended; sign in again' }),
      );
    });
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const renewSession = jest.fn(() => Promise.reject(new Error('login_required')));
    const onSessionEnded = jest.fn();
    const unmount = await mountInto(element, options({ apiBaseUrl, renewSession, onSessionEnded }));
    await userEvent.click(within(element).getByRole('button', { name: 'Call the API' }));
    await waitFor(() => expect(onSessionEnded).toHaveBeenCalledTimes(1));
    expect(renewSession).toHaveBeenCalledTimes(1);
    act(() => unmount());
  });

  it('asks the API whether the user is federated when the option is left out', async () => {
    const { apiBaseUrl, calls } = await startApi((_request, response) =>
      json(response, 200, { isFederated: true }),
    );
    const { isFederated: _omitted, ...rest } = options({ apiBaseUrl });
    const unmount = await mountInto(element, rest);
    expect(await within(element).findByText('federated')).toBeInTheDocument();
    expect(calls).toEqual([
      { method: 'GET', url: '/api/profile/00u1/isfederated', authorization: 'Bearer access-token' },
    ]);
    act(() => unmount());
  });

  it('counts a failed federated check as not federated, and shows a spinner until it answers', async () => {
    const held: http.ServerResponse[] = [];
    const { apiBaseUrl } = await startApi((_request, response) => held.push(response));
    const { isFederated: _omitted, ...rest } = options({ apiBaseUrl });
    const unmount = await mountInto(element, rest);
    await waitFor(() => expect(held).toHaveLength(1));
    expect(within(element).getByLabelText('Loading Security')).toBeInTheDocument();
    held.forEach((response) => json(response, 503, { error: 'down' }));
    expect(await within(element).findByText('local')).toBeInTheDocument();
    act(() => unmount());
  });

  it('unmount empties the element; calling it twice does nothing; the element can be mounted again', async () => {
    const unmount = await mountInto(element, options());
    expect(element).not.toBeEmptyDOMElement();
    act(() => unmount());
    expect(element).toBeEmptyDOMElement();
    act(() => unmount());
    const again = await mountInto(element, options({ user: { sub: '00u2', email: 'sam@example.org' } }));
    expect(within(element).getByRole('region', { name: 'Test page' })).toHaveTextContent('sam@example.org');
    act(() => again());
    expect(element).toBeEmptyDOMElement();
  });

  it('refuses to mount twice into the same element', async () => {
    const unmount = await mountInto(element, options());
    expect(() => mount(element, options())).toThrow(
      'mount(): remote_test is already mounted in this element; call the unmount function mount() returned first.',
    );
    act(() => unmount());
  });

  it('fails fast on bad options, naming the option, and renders nothing', () => {
    expect(() => mount(element, { ...options(), apiBaseUrl: 'localhost' })).toThrow(
      'mount(): invalid option "apiBaseUrl"',
    );
    expect(() => mount('#security' as unknown as HTMLElement, options())).toThrow('must be a DOM element');
    expect(element).toBeEmptyDOMElement();
  });
});

describe('the bridge-react provider', () => {
  it('renders for a React host that passes the options as props, and destroys', async () => {
    const bridge = provider();
    await act(async () => {
      await bridge.render({ dom: element, moduleName: 'remote_test', basename: '/', ...options() });
    });
    expect(within(element).getByRole('heading', { name: 'Security' })).toBeInTheDocument();
    act(() => bridge.destroy({ dom: element, moduleName: 'remote_test' }));
    expect(element).toBeEmptyDOMElement();
  });

  it('shows a contained error for props that are not valid options', async () => {
    const bridge = provider();
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    await act(async () => {
      await bridge.render({
        dom: element,
        moduleName: 'remote_test',
        ...options(),
        getAccessToken: undefined,
      });
    });
    await waitFor(() =>
      expect(within(element).getByRole('alert')).toHaveTextContent('invalid option "getAccessToken"'),
    );
    act(() => bridge.destroy({ dom: element, moduleName: 'remote_test' }));
  });
});
