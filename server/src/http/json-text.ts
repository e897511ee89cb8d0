import { ResponseSerializationError } from 'fastify-type-provider-zod';
import type { z } from 'zod';

/**
 * The serializer of the contract's success answers, which are JSON text that holds JSON (spec section 7): the
 * body is a JSON string whose content is the JSON of the answer, and the browser client parses twice. The value
 * is checked against the call's response schema first, so the server never sends a shape the client does not
 * expect (a mismatch is a 500, as any bug).
 */
export const jsonTextSerializerCompiler = ({
  schema,
  method,
  url,
}: {
  // Fastify types it as the route's whole schema; registerCall gives it the call's response schema.
  schema: unknown;
  method: string;
  url: string;
}): ((data: unknown) => string) => {
  const response = schema as z.ZodType;
  return (data) => {
    const checked = response.safeParse(data);
    if (!checked.success) throw new ResponseSerializationError(method, url, { cause: checked.error });
    return JSON.stringify(JSON.stringify(checked.data));
  };
};
