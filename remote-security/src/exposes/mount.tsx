// The framework-agnostic entry (`./mount`): mount(element, options) renders the Security page into any element
// (themed, with its own auth context) and returns the unmount function. See the README: "Embed in any page".
import { createRemoteMount } from 'mount-runtime';
import SecurityPage from './SecurityPage.js';

const entry = createRemoteMount(SecurityPage, { name: 'remote_security', label: 'Security' });

export const mount = entry.mount;
/** The same page as a bridge-react provider, for React hosts (`createRemoteAppComponent`). */
export default entry.provider;
