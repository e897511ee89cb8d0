import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { storageUnavailableReason } from '../db/errors.js';
import { API_ERROR_CODES, defaultErrorCodeOf } from 'shared-auth/contract';
import { HttpError } from '../http/errors.js';
import { STORAGE_RETRY_AFTER_SECONDS, STORAGE_UNAVAILABLE_MESSAGE } from '../http/storage-unavailable.js';

const GENERIC_ZOD_MESSAGE = /^(Invalid|Too (big|small)|Expected|Unrecognized)/;

/** One error shape for the whole server: `{ "error": "clear message" }`, never a stack trace. */
export default fp(
  async function errorsPlugin(app: FastifyInstance) {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      if (error instanceof HttpError) {
        return (
          reply
            .code(error.statusCode)
            .headers(error.headers)
            // `error` and `code` first and authoritative; a refusal's details (e.g. `proof`) after them.
            .send(
              Object.assign({ error: error.message, code: error.code }, error.details, {
                error: error.message,
                code: error.code,
              }),
            )
        );
      }
      const unavailable = storageUnavailableReason(error);
      if (unavailable !== undefined) {
        request.log.warn({ code: error.code, reason: unavailable }, 'storage unavailable: answered 503');
        return reply
          .code(503)
          .header('Retry-After', String(STORAGE_RETRY_AFTER_SECONDS))
          .header('Cache-Control', 'no-store')
          .send({ error: STORAGE_UNAVAILABLE_MESSAGE, code: API_ERROR_CODES.storageUnavailable });
      }
      if (hasZodFastifySchemaValidationErrors(error)) {
        const issue = error.validation[0];
        const field = issue?.instancePath.replace(/^\//, '').replace(/\//g, '.') ?? '';
        const where = error.validationContext === 'params' ? `${field} (in the path)` : field;
        const message = issue?.message ?? 'The request is not valid';
        return reply.code(400).send({
          error: field && GENERIC_ZOD_MESSAGE.test(message) ? `${where}: ${message}` : message,
          code: API_ERROR_CODES.invalidRequest,
        });
      }
      switch (error.code) {
        case 'FST_ERR_CTP_INVALID_JSON_BODY':
          return reply
            .code(400)
            .send({ error: 'The request body is not valid JSON', code: API_ERROR_CODES.invalidRequest });
        case 'FST_ERR_CTP_EMPTY_JSON_BODY':
          return reply.code(400).send({
            error: 'The request body is empty; send a JSON object',
            code: API_ERROR_CODES.invalidRequest,
          });
        case 'FST_ERR_CTP_BODY_TOO_LARGE':
          return reply
            .code(413)
            .send({ error: 'The request body is too large', code: API_ERROR_CODES.bodyTooLarge });
        case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
          return reply.code(415).send({
            error: 'Send the request body as application/json',
            code: API_ERROR_CODES.unsupportedMediaType,
          });
        default:
      }
      if (error.statusCode === 429) {
        return reply.code(429).send({
          error: 'Too many requests; wait a minute and try again',
          code: API_ERROR_CODES.rateLimited,
        });
      }
      if (error.validation) {
        return reply.code(400).send({ error: error.message, code: API_ERROR_CODES.invalidRequest });
      }
      if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
        return reply
          .code(error.statusCode)
          .send({ error: error.message, code: defaultErrorCodeOf(error.statusCode) });
      }
      request.log.error({ err: error }, 'unexpected error');
      return reply.code(500).send({ error: 'Internal error', code: API_ERROR_CODES.internalError });
    });
  },
  { name: 'errors' },
);
