import type { FastifyRequest } from 'fastify';
import type { Caller } from '../plugins/types.js';

/** The caller the /api auth hook attached; a route outside that hook calling this is a programming error. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error(`${request.method} ${request.url} ran without the auth hook`);
  return request.caller;
}
