import { act, within } from '@testing-library/react';
import { mount } from './mount.js';

// The ./mount entry renders this remote's real page; remote-harness tests the options and the lifecycle.
describe('./mount', () => {
  it('renders the Security page into the element, and unmount empties it', async () => {
    const element = document.createElement('div');
    document.body.append(element);
    let unmount = () => undefined as void;
    await act(async () => {
      unmount = mount(element, {
        getAccessToken: () => 'token',
        user: {
          sub: '00u1',
          email: 'tess@example.org',
          given_name: 'Tess',
          family_name: 'Tester',
          country: 'DE',
        },
        apiBaseUrl: 'http://localhost:3000',
        isFederated: true,
      });
    });
    expect(within(element).getByRole('heading', { level: 1, name: 'Security' })).toBeInTheDocument();
    expect(within(element).getByText('Resource not available for federated users')).toBeInTheDocument();
    act(() => unmount());
    expect(element).toBeEmptyDOMElement();
    element.remove();
  });

  it('refuses bad options with a message naming the option', () => {
    const element = document.createElement('div');
    expect(() =>
      mount(element, {
        getAccessToken: () => 'token',
        user: { sub: '00u1', email: 'tess@example.org' },
        apiBaseUrl: 'nope',
      }),
    ).toThrow('mount(): invalid option "apiBaseUrl"');
    expect(element).toBeEmptyDOMElement();
  });
});
