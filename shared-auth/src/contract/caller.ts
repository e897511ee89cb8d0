import type { z } from 'zod';
import { pathOf, type ApiCall } from './call.js';
import { apiCalls } from './calls.js';
import { API_ERROR_CODES, ApiError, CLIENT_ERROR_CODES } from './errors.js';

/** What a caller needs of the API client (`createApiClient`): one request, its status and parsed body. */
export interface ApiRequester {
  request(config: {
    method: string;
    url: string;
    data?: unknown;
    signal?: AbortSignal;
  }): Promise<{ status: number; data: unknown }>;
}

/** Per-call options: a signal ends the request when the screen that asked for it goes away. */
export interface CallOptions {
  signal?: AbortSignal;
}

type ParamsInput<C extends ApiCall> = C['params'] extends z.ZodType
  ? { params: z.input<C['params']> }
  : { params?: undefined };
type BodyInput<C extends ApiCall> = C['body'] extends z.ZodType
  ? undefined extends z.input<C['body']>
    ? { body?: z.input<C['body']> }
    : { body: z.input<C['body']> }
  : { body?: undefined };

type QueryInput<C extends ApiCall> = C['query'] extends z.ZodType
  ? { query?: z.input<C['query']> }
  : { query?: undefined };

/** What a call takes: its path params, its query and its body, as declared. */
export type CallInput<C extends ApiCall> = ParamsInput<C> & QueryInput<C> & BodyInput<C>;

/** `?name=value&…` of the query's set values ('' when none is set). */
function queryStringOf(query: Record<string, string | undefined> | undefined): string {
  const set = Object.entries(query ?? {}).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  return set.length === 0 ? '' : `?${new URLSearchParams(set).toString()}`;
}

/**
 * What a call resolves to: the declared answer, checked. A call whose ok answer means done resolves to
 * `undefined` when the body of its 2xx answer is not the declared one.
 */
export type CallResult<C extends ApiCall> = C['okMeansDone'] extends true
  ? z.output<C['response']> | undefined
  : z.output<C['response']>;

/** A function that sends one declared call through a client (`contractCallerOf`); not the server's `Caller`. */
export type ContractCaller<C extends ApiCall> = (
  client: ApiRequester,
  input: CallInput<C>,
  options?: CallOptions,
) => Promise<CallResult<C>>;

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'not valid';
  return issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
}

/**
 * Calls `call` through the client: the path from its template and params, the body checked against its schema
 * (sent as given), and the answer checked against the response schema. Refusals arrive as ApiError (with the
 * server's `code`) from the client; a request that does not match the declaration rejects without being sent.
 */
export async function callApi<C extends ApiCall>(
  client: ApiRequester,
  call: C,
  input: CallInput<C>,
  { signal }: CallOptions = {},
): Promise<CallResult<C>> {
  const { params, query, body } = input as { params?: unknown; query?: unknown; body?: unknown };
  if (call.params) {
    const checked = call.params.safeParse(params);
    if (!checked.success) {
      throw new ApiError(`${call.path}: ${firstIssue(checked.error)}`, 0, API_ERROR_CODES.invalidRequest);
    }
  }
  if (call.body) {
    const checked = call.body.safeParse(body);
    if (!checked.success) throw new ApiError(firstIssue(checked.error), 0, API_ERROR_CODES.invalidRequest);
  }
  if (call.query) {
    const checked = call.query.safeParse(query ?? {});
    if (!checked.success) {
      throw new ApiError(`${call.path}: ${firstIssue(checked.error)}`, 0, API_ERROR_CODES.invalidRequest);
    }
  }
  const url =
    pathOf(call.path, params as Record<string, string> | undefined) +
    (call.query ? queryStringOf(query as Record<string, string | undefined> | undefined) : '');
  const { status, data } = await client.request({
    method: call.method,
    url,
    ...(body === undefined ? {} : { data: body }),
    signal,
  });
  const answer = call.response.safeParse(data);
  if (answer.success) return answer.data as CallResult<C>;
  if (call.okMeansDone) return undefined as CallResult<C>;
  throw new ApiError(
    `The account service answered ${call.method} ${call.path} in an unexpected shape (${firstIssue(answer.error)})`,
    status,
    CLIENT_ERROR_CODES.invalidResponse,
  );
}

/** One typed caller of a declared call. */
export function contractCallerOf<C extends ApiCall>(call: C): ContractCaller<C> {
  return (client, input, options) => callApi(client, call, input, options);
}

type CallersOf<T> = { [K in keyof T]: T[K] extends ApiCall ? ContractCaller<T[K]> : CallersOf<T[K]> };

function callersOf<T extends object>(calls: T): CallersOf<T> {
  return Object.fromEntries(
    Object.entries(calls).map(([name, value]: [string, ApiCall | object]) => [
      name,
      'method' in value ? contractCallerOf(value as ApiCall) : callersOf(value),
    ]),
  ) as CallersOf<T>;
}

/**
 * The browser's caller of every declared call, in the shape of `apiCalls`:
 * `apiCallers.isFederated(client, { params: { sub } }, { signal })`,
 * `apiCallers.multifactor.email.activate(client, { params: { sub }, body: { code } })`.
 */
export const apiCallers = /* @__PURE__ */ callersOf(apiCalls);
