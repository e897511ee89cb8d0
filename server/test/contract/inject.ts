/** An API call of the contract suite through inject(), its answer as the tests read it (backend.ts, real-org.ts). */
import type { FastifyInstance } from 'fastify';
import { parseTwice } from '../helpers.js';
import type { ContractAnswer } from './backend.js';

/** The answer of an inject(): 2xx JSON text through parseTwice, others as JSON, or the text when not JSON. */
function answerOf(response: {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
}): ContractAnswer {
  let body: unknown = response.body;
  if (response.body !== '') {
    try {
      body =
        response.statusCode >= 200 && response.statusCode < 300
          ? parseTwice(response.body)
          : JSON.parse(response.body);
    } catch {
      // Not JSON (e.g. text from a proxy-like refusal): the test sees the text.
    }
  }
  return {
    status: response.statusCode,
    body,
    headers: response.headers as Record<string, string | string[] | undefined>,
  };
}

export async function inject(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  token: string | undefined,
  body?: unknown,
): Promise<ContractAnswer> {
  const response = await app.inject({
    method,
    url,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return answerOf(response);
}
