// jsdom lacks these browser APIs; react-router needs TextEncoder and antd's responsive parts need matchMedia.
const util = require('node:util');

Object.assign(globalThis, { TextEncoder: util.TextEncoder, TextDecoder: util.TextDecoder });
// antd's form and select post tasks through MessageChannel, which jsdom lacks. Node's own keeps the process
// alive, so deliver messages with timers instead.
if (typeof globalThis.MessageChannel === 'undefined') {
  globalThis.MessageChannel = class MessageChannel {
    constructor() {
      const port = (other) => ({
        onmessage: null,
        postMessage: (data) => setTimeout(() => other().onmessage?.({ data }), 0),
        close: () => {},
      });
      this.port1 = port(() => this.port2);
      this.port2 = port(() => this.port1);
    }
  };
}

if (typeof window !== 'undefined') {
  // jsdom has no fetch, which the portal's API client and settings use: GitHub's polyfill over jsdom's
  // XMLHttpRequest, so requests to a test's real server keep the browser's CORS rules and abort signals.
  if (typeof window.fetch === 'undefined') require('whatwg-fetch');
  if (!window.matchMedia) {
    // Tests run as a user who prefers reduced motion: no animations to wait for.
    window.matchMedia = (query) => ({
      matches: query.includes('prefers-reduced-motion: reduce'),
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    });
  }
  // jsdom implements getComputedStyle for elements but not for pseudo-elements, which antd measures.
  const getComputedStyle = window.getComputedStyle.bind(window);
  window.getComputedStyle = (element) => getComputedStyle(element);
  if (!window.ResizeObserver) {
    window.ResizeObserver = class {
      observe() {}
      unobserve() {}
      disconnect() {}
    };
  }
}
