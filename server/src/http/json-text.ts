import type { FastifyReply } from 'fastify';
import type { z } from 'zod';

/**
 * The spec's success answers are JSON text that holds JSON (section 7): the body is a JSON string whose
 * content is the JSON of the answer, and the browser client parses twice. The value is checked against
 * its contract schema first, so the server can never send a shape the client does not expect.
 */
export function sendJsonText<T extends z.ZodType>(
  reply: FastifyReply,
  schema: T,
  value: z.input<T>,
): FastifyReply {
  const checked = schema.parse(value);
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(JSON.stringify(checked)));
}
