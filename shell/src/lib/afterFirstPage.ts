// Work that no first page needs (the form controls, the user menu) waits until a page has rendered, then runs
// when the browser is idle: fetched earlier, it would compete with the page for the network and the main thread.

type Task = () => void;

const waiting: Task[] = [];
let pageShown = false;

function whenIdle(task: Task): void {
  if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(() => task());
  else window.setTimeout(task, 200);
}

/** Runs `task` once the browser is idle after the first page, or at the next idle moment if it already showed. */
export function afterFirstPage(task: Task): void {
  if (pageShown) whenIdle(task);
  else waiting.push(task);
}

/** A remote's page has rendered: what was waiting for it may load now. */
export function firstPageShown(): void {
  if (pageShown) return;
  pageShown = true;
  for (const task of waiting.splice(0)) whenIdle(task);
}
