import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  isFederatedResponseSchema,
  profileUpdateResponseSchema,
  profileUpdateSchema,
  type Profile,
} from 'shared-auth/contract';
import { z } from 'zod';
import type { User } from '../../../directory/directory.js';
import { callerOf } from '../../../auth/caller.js';
import { HttpError } from '../../../http/errors.js';
import { sendJsonText } from '../../../http/json-text.js';

const paramsSchema = z.object({ sub: z.string().min(1).max(100) });

function profileOf(user: User): Profile {
  return {
    sub: user.id,
    email: user.email,
    firstName: user.givenName,
    lastName: user.familyName,
    country: user.country,
  };
}

export default async function profileRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/:sub/isfederated', { schema: { params: paramsSchema } }, async (request, reply) => {
    const { user } = callerOf(request);
    return sendJsonText(reply, isFederatedResponseSchema, { isFederated: user.isFederated });
  });

  app.put(
    '/:sub/update',
    { schema: { params: paramsSchema, body: profileUpdateSchema } },
    async (request, reply) => {
      const { user } = callerOf(request);
      // Their profile belongs to their home identity provider.
      if (user.isFederated) throw new HttpError(403, 'Federated users cannot edit their profile');
      const { firstName, lastName, country } = request.body;
      const saved = app.directory.updateProfile(user.id, {
        givenName: firstName,
        familyName: lastName,
        country,
      });
      if (!saved) throw new HttpError(404, 'The account no longer exists');
      request.log.info({ userId: user.id, fields: Object.keys(request.body) }, 'profile updated');
      return sendJsonText(reply, profileUpdateResponseSchema, profileOf(saved));
    },
  );
}
