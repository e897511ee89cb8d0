/**
 * The API's refusals that do not depend on the account's data, the same against each identity backend.
 */
import { apiPaths } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { useContractBackend } from './backend.js';

const backend = useContractBackend();

describe('authentication', () => {
  it('401 with a Bearer challenge without a token', async () => {
    const b = backend();
    const ada = await b.newAccount();
    const answer = await b.call('GET', apiPaths.isFederated(ada.sub), undefined);
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Bearer');
  });
});
