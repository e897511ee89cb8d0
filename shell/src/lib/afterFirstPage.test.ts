import { afterFirstPage, firstPageShown } from './afterFirstPage.js';

describe('afterFirstPage', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('holds work until a page has shown, then runs it when the browser is idle, and later work at the next idle', () => {
    const prefetchForms = jest.fn();
    const prefetchMenu = jest.fn();
    afterFirstPage(prefetchForms);
    afterFirstPage(prefetchMenu);
    jest.runAllTimers();
    expect(prefetchForms).not.toHaveBeenCalled();

    firstPageShown();
    // Not in the same task as the page's render: at the next idle moment (a timer where the browser has no
    // requestIdleCallback, as jsdom).
    expect(prefetchForms).not.toHaveBeenCalled();
    jest.runAllTimers();
    expect(prefetchForms).toHaveBeenCalledTimes(1);
    expect(prefetchMenu).toHaveBeenCalledTimes(1);

    // A second page showing runs nothing again; work asked for afterwards waits only for idle.
    firstPageShown();
    const late = jest.fn();
    afterFirstPage(late);
    jest.runAllTimers();
    expect(prefetchForms).toHaveBeenCalledTimes(1);
    expect(late).toHaveBeenCalledTimes(1);
  });
});
