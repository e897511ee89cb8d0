// The framework-agnostic entry (`./mount`): mount(element, options) renders the Password page into any element
// (themed, with its own auth context) and returns the unmount function. See the README: "Embed in any page".
import { createRemoteMount } from 'mount-runtime';
import PasswordPage from './PasswordPage.js';

const entry = createRemoteMount(PasswordPage, { name: 'remote_password', label: 'Password' });

export const mount = entry.mount;
/** The same page as a bridge-react provider, for React hosts (`createRemoteAppComponent`). */
export default entry.provider;
