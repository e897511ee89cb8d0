// The framework-agnostic entry (`./mount`): mount(element, options) renders the My Profile page into any element
// (themed, with its own auth context) and returns the unmount function. See the README: "Embed in any page".
import { createRemoteMount } from 'mount-runtime';
import ProfilePage from './ProfilePage.js';

const entry = createRemoteMount(ProfilePage, { name: 'remote_profile', label: 'My Profile' });

export const mount = entry.mount;
/** The same page as a bridge-react provider, for React hosts (`createRemoteAppComponent`). */
export default entry.provider;
