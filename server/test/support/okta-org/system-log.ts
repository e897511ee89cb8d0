/**
 * The stand-in's System Log: the events the stand-in records when its own operations happen (a sign-in on its
 * authorization server, a factor activated, verified or removed, a password changed, the sessions cleared), shaped
 * as Okta's LogEvent, and `GET /api/v1/logs` over them as a bounded request: `since`/`until` on `published`,
 * `sortOrder`, `limit`, the SCIM `filter` the portal sends, and paging with `after` through the
 * `Link: <…>; rel="next"` header. The answers are validated against the vendored specification by org.ts, like
 * every other operation. See README.md ("System Log").
 */
import { randomBytes, randomUUID } from 'node:crypto';

/** The request of the client an event records (Okta: the HTTP client that caused it). */
export interface LogClientInput {
  userAgent?: string | undefined;
  ipAddress?: string | undefined;
}

/** Who did it: the user, or the service app / API token admin calling the Management API. */
export interface LogActorInput {
  id: string;
  type: string;
  alternateId: string;
  displayName: string;
}

export interface LogTargetInput {
  id: string;
  type: string;
  alternateId: string;
  displayName: string;
  detailEntry?: Record<string, string>;
}

export interface LogEventInput {
  eventType: string;
  displayMessage: string;
  legacyEventType?: string;
  result: 'SUCCESS' | 'FAILURE';
  reason?: string;
  actor: LogActorInput;
  targets: LogTargetInput[];
  client: LogClientInput;
  /** The Okta session the event belongs to (`authenticationContext.externalSessionId`). */
  sessionId?: string;
  credentialType?: 'PASSWORD' | 'OTP' | 'EMAIL';
  requestUri?: string;
  /** When (ms); now by default. */
  published?: number;
}

/** A LogEvent as Okta answers it (only declared properties, no nulls). */
export type LogEventJson = Record<string, unknown> & { uuid: string; published: string; eventType: string };

/** What listing gives: a page and its Link header, or a request the stand-in does not model. */
export type LogListing =
  | { kind: 'page'; body: LogEventJson[]; link: string }
  | { kind: 'unknown-after' }
  | { kind: 'unsimulated'; detail: string };

/** Builds the LogEvent of an input, as Okta shapes it. */
export function logEventJson(input: LogEventInput): LogEventJson {
  const client: Record<string, unknown> = {};
  if (input.client.userAgent) client.userAgent = { rawUserAgent: input.client.userAgent };
  if (input.client.ipAddress) client.ipAddress = input.client.ipAddress;
  return {
    uuid: randomUUID(),
    published: new Date(input.published ?? Date.now()).toISOString(),
    eventType: input.eventType,
    version: '0',
    severity: input.result === 'SUCCESS' ? 'INFO' : 'WARN',
    displayMessage: input.displayMessage,
    ...(input.legacyEventType ? { legacyEventType: input.legacyEventType } : {}),
    actor: { ...input.actor },
    client,
    outcome: { result: input.result, ...(input.reason ? { reason: input.reason } : {}) },
    target: input.targets.map((target) => ({ ...target })),
    transaction: { type: 'WEB', id: randomBytes(20).toString('base64url').slice(0, 27), detail: {} },
    authenticationContext: {
      authenticationStep: 0,
      ...(input.sessionId ? { externalSessionId: input.sessionId } : {}),
      ...(input.credentialType ? { credentialType: input.credentialType } : {}),
    },
    ...(input.requestUri ? { debugContext: { debugData: { requestUri: input.requestUri } } } : {}),
  };
}

// -- the SCIM filter ------------------------------------------------------------------------------------------------

type Predicate = (event: LogEventJson) => boolean;

/** The attributes a filter may name here, and how an event answers each. */
const ATTRIBUTES: Record<string, (event: LogEventJson) => string[]> = {
  eventType: (event) => [event.eventType],
  'actor.id': (event) => [String((event.actor as { id?: unknown } | undefined)?.id ?? '')],
  'target.id': (event) =>
    ((event.target as { id?: unknown }[] | undefined) ?? []).map((target) => String(target.id ?? '')),
  'outcome.result': (event) => [String((event.outcome as { result?: unknown } | undefined)?.result ?? '')],
};

/**
 * Parses the part of SCIM's filter grammar the portal uses: `attribute eq "value"` of the attributes above, joined by
 * `and` (binding tighter) and `or`, grouped with parentheses. Anything else throws (an unsimulated filter).
 */
export function parseFilter(filter: string): Predicate {
  const tokens = filter.match(/\(|\)|"(?:[^"\\]|\\.)*"|[^\s()"]+/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const refuse = (): never => {
    throw new Error(`the filter "${filter}" is not one the stand-in models (at "${peek() ?? 'its end'}")`);
  };
  const take = (expected?: string) => {
    const token = tokens[at];
    if (token === undefined || (expected !== undefined && token.toLowerCase() !== expected)) return refuse();
    at += 1;
    return token;
  };
  const term = (): Predicate => {
    if (peek() === '(') {
      take('(');
      const inner = or();
      take(')');
      return inner;
    }
    const read = ATTRIBUTES[take()] ?? refuse();
    take('eq');
    const literal = take();
    if (!/^".*"$/.test(literal)) refuse();
    const value = JSON.parse(literal) as string;
    return (event) => read(event).includes(value);
  };
  const and = (): Predicate => {
    const parts = [term()];
    while (peek()?.toLowerCase() === 'and') {
      take('and');
      parts.push(term());
    }
    return (event) => parts.every((part) => part(event));
  };
  const or = (): Predicate => {
    const parts = [and()];
    while (peek()?.toLowerCase() === 'or') {
      take('or');
      parts.push(and());
    }
    return (event) => parts.some((part) => part(event));
  };
  const predicate = or();
  if (at !== tokens.length) refuse();
  return predicate;
}

// -- the log --------------------------------------------------------------------------------------------------------

const DAY_MS = 24 * 60 * 60 * 1000;

export class SystemLog {
  private readonly events: { seq: number; event: LogEventJson }[] = [];
  private seq = 0;

  /** Appends an event (an operation's, or a test's through addLogEvent). */
  append(event: LogEventJson): void {
    this.seq += 1;
    this.events.push({ seq: this.seq, event: structuredClone(event) });
  }

  /** Every event, oldest first (tests read what was recorded). */
  all(): LogEventJson[] {
    return this.events.map(({ event }) => structuredClone(event));
  }

  /**
   * `GET /api/v1/logs` as a bounded request: events published from `since` (default: 7 days before `until`) to
   * `until` (default: now), in `sortOrder`, of the filter, `limit` of them (default 100) after the event named by
   * `after`; `Link` holds `self` and, when more events follow, `next` (with `until` moved to the page's last event
   * in DESCENDING order, as Okta's next links do). A polling request (ASCENDING without `until`) and `q` are not
   * modelled.
   */
  list(query: URLSearchParams, requestUrl: string): LogListing {
    if (query.has('q')) return { kind: 'unsimulated', detail: 'the keyword search q' };
    const descending = query.get('sortOrder') === 'DESCENDING';
    if (!query.has('until') && !descending) {
      return { kind: 'unsimulated', detail: 'a polling request (ASCENDING without until)' };
    }
    const until = query.has('until') ? Date.parse(query.get('until') as string) : Date.now();
    const since = query.has('since') ? Date.parse(query.get('since') as string) : until - 7 * DAY_MS;
    let matches: Predicate = () => true;
    const filter = query.get('filter');
    if (filter !== null) {
      try {
        matches = parseFilter(filter);
      } catch (error) {
        return { kind: 'unsimulated', detail: (error as Error).message };
      }
    }
    const limit = query.has('limit') ? Number(query.get('limit')) : 100;
    const ordered = this.events
      .filter(({ event }) => {
        const published = Date.parse(event.published);
        return published >= since && published <= until && matches(event);
      })
      .sort((a, b) => Date.parse(a.event.published) - Date.parse(b.event.published) || a.seq - b.seq);
    if (descending) ordered.reverse();
    let start = 0;
    const after = query.get('after');
    if (after !== null) {
      const index = ordered.findIndex(({ event }) => event.uuid === after);
      if (index === -1) return { kind: 'unknown-after' };
      start = index + 1;
    }
    const page = ordered.slice(start, start + limit).map(({ event }) => structuredClone(event));
    const links = [`<${requestUrl}>; rel="self"`];
    const last = page[page.length - 1];
    if (last && start + limit < ordered.length) {
      const next = new URL(requestUrl);
      next.searchParams.set('after', last.uuid);
      if (descending) next.searchParams.set('until', last.published);
      links.push(`<${next.href}>; rel="next"`);
    }
    return { kind: 'page', body: page, link: links.join(', ') };
  }
}
