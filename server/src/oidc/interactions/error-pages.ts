/**
 * The provider's pages answer as pages: a refusal or an unexpected error of the sign-in, 2-step and reset pages is
 * an HTML page in their look, with its status code (and Retry-After, with the wait in words, where there is one),
 * never the API's JSON, which a person would see as raw text.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { storageUnavailableReason } from '../../db/errors.js';
import { HttpError } from '../../http/errors.js';
import { STORAGE_RETRY_AFTER_SECONDS } from '../../http/storage-unavailable.js';
import { escapeHtml, page } from '../html.js';

export const FORM_NOT_READ = 'This form was not sent as expected. Go back to the page and try again.';
export const FORM_TOO_LARGE = 'This form is too large to be sent. Go back to the page and try again.';
export const UNEXPECTED_PAGE_ERROR = 'Something went wrong on our side. Try again in a moment.';

/** What the pages of one flow say when they refuse: their title, their storage-unavailable text, the way back. */
export interface ErrorPageTexts {
  title: string;
  unavailable: string;
  back: { href: string; label: string };
}

/** A refusal as a page: the title, the message in an alert, the way back. */
export function refusalPage({ title, back }: ErrorPageTexts, message: string): string {
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p role="alert">${escapeHtml(message)}</p>
<p><a href="${escapeHtml(back.href)}">${escapeHtml(back.label)}</a></p>`,
  );
}

/** Sends a page with the no-store the provider's pages carry. */
export function sendPage(reply: FastifyReply, statusCode: number, html: string): FastifyReply {
  return reply
    .code(statusCode)
    .header('Cache-Control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(html);
}

/** An error handler for a scope of page routes (Fastify's setErrorHandler in the routes' plugin). */
export function pageErrorHandler(texts: ErrorPageTexts) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const answer = (statusCode: number, message: string) =>
      sendPage(reply, statusCode, refusalPage(texts, message));
    if (error instanceof HttpError) {
      reply.headers(error.headers);
      return answer(error.statusCode, error.message);
    }
    const unavailable = storageUnavailableReason(error);
    if (unavailable !== undefined) {
      request.log.warn({ code: error.code, reason: unavailable }, 'storage unavailable: answered 503 page');
      reply.header('Retry-After', String(STORAGE_RETRY_AFTER_SECONDS));
      return answer(503, texts.unavailable);
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return answer(413, FORM_TOO_LARGE);
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (error.validation || (status >= 400 && status < 500)) {
      return answer(status >= 400 && status < 500 ? status : 400, FORM_NOT_READ);
    }
    request.log.error({ err: error }, 'unexpected error on a provider page');
    return answer(500, UNEXPECTED_PAGE_ERROR);
  };
}
