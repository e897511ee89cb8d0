import type { FastifyInstance } from 'fastify';
import { API_ERRORS, apiCalls, type Profile } from 'shared-auth/contract';
import type { User } from '../../../directory/directory.js';
import { callerOf, currentUser } from '../../../auth/caller.js';
import { refusal } from '../../../http/errors.js';
import { registerCall } from '../../../http/register-call.js';

function profileOf(user: User): Profile {
  return {
    sub: user.id,
    email: user.email,
    firstName: user.givenName,
    lastName: user.familyName,
    country: user.country,
  };
}

export default async function profileRoutes(app: FastifyInstance) {
  // The account as the identity backend holds it now (Okta mode: not the per-call cache's copy).
  registerCall(app, apiCalls.isFederated, async (request) => ({
    isFederated: (await currentUser(app.identity, callerOf(request))).isFederated,
  }));

  registerCall(app, apiCalls.profileUpdate, async (request) => {
    const { user } = callerOf(request);
    // Their profile belongs to their home identity provider.
    if (user.isFederated)
      throw refusal(API_ERRORS.federatedUser, 'Federated users cannot edit their profile');
    const { firstName, lastName, country } = request.body;
    // Only the fields sent change (Okta: a partial update of the user, never a replace).
    const saved = await app.identity.updateProfile(user.id, {
      givenName: firstName,
      familyName: lastName,
      country,
    });
    if (!saved) throw refusal(API_ERRORS.notFound, 'The account no longer exists');
    request.log.info({ userId: user.id, fields: Object.keys(request.body) }, 'profile updated');
    return profileOf(saved);
  });
}
