import { act, within } from '@testing-library/react';
import type { RemoteMount } from 'shared-auth';

interface MountEntryExpectations {
  /** The remote's `mount` (its ./mount entry). */
  mount: RemoteMount<HTMLElement>;
  /** The page's level-1 heading. */
  pageHeading: string;
  isFederated: boolean;
  /** A text the page shows for that user without calling the API. */
  shows: string;
}

/**
 * The tests every remote's ./mount entry needs: it renders the remote's real page into the element and unmount
 * empties it; bad options throw naming the option. (mount-runtime tests the options and the lifecycle in depth.)
 */
export function describeMountEntry({ mount, pageHeading, isFederated, shows }: MountEntryExpectations) {
  describe('./mount', () => {
    it(`renders the ${pageHeading} page into the element, and unmount empties it`, async () => {
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
          isFederated,
        });
      });
      expect(within(element).getByRole('heading', { level: 1, name: pageHeading })).toBeInTheDocument();
      expect(within(element).getByText(shows)).toBeInTheDocument();
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
}
