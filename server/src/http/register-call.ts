import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { ApiCall } from 'shared-auth/contract';
import type { z } from 'zod';
import { jsonTextSerializerCompiler } from './json-text.js';

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

/** The request of a declared call: its params, query and body as their schemas parsed them. */
export type CallRequest<C extends ApiCall> = FastifyRequest<{
  Params: Output<C['params']>;
  Querystring: Output<C['query']>;
  Body: Output<C['body']>;
}>;

/** Answers a declared call with the value of its success answer; refusals are thrown (HttpError). */
export type CallHandler<C extends ApiCall> = (
  request: CallRequest<C>,
  reply: FastifyReply,
) => Promise<z.input<C['response']>>;

/**
 * Registers the route of a contract call: its method and path (relative to the plugin's prefix, e.g. /api), its
 * params, query and body validated by their schemas, and its success answer serialized by the response schema as JSON
 * text. Error answers keep the error handler's plain JSON `{ error, code }`: the schema is for 200 only.
 */
export function registerCall<C extends ApiCall>(
  app: FastifyInstance,
  call: C,
  handler: CallHandler<C>,
): void {
  if (!call.path.startsWith(`${app.prefix}/`)) {
    throw new Error(`${call.method} ${call.path} is not under this plugin's prefix ${app.prefix}`);
  }
  app.route({
    method: call.method,
    url: call.path.slice(app.prefix.length),
    schema: {
      ...(call.params ? { params: call.params } : {}),
      ...(call.query ? { querystring: call.query } : {}),
      ...(call.body ? { body: call.body } : {}),
      response: { 200: call.response },
    },
    serializerCompiler: jsonTextSerializerCompiler,
    ...(call.public ? { config: { public: true } } : {}),
    handler: handler as unknown as RouteHandlerMethod,
  });
}
