import { apiBaseUrlOf } from './apiBaseUrl.js';

describe('apiBaseUrlOf', () => {
  it('reads the meta tag, or falls back to the local server', () => {
    document.head.innerHTML = '<meta name="portal-api-base-url" content="https://account.example.com/" />';
    expect(apiBaseUrlOf(document)).toBe('https://account.example.com');
    document.head.innerHTML = '';
    expect(apiBaseUrlOf(document)).toBe('http://localhost:3000');
  });
});
