// The real antd QRCode, in a chunk of its own: only the authenticator-app setup needs it.
export { QRCode as default } from 'antd';
