// The token endpoint (docs/contract/authentication.md): an API token's key and secret, from the client's
// address (counted by the failure throttle), for an access token.
import { clientAddress } from '../context';
import { ok } from '../envelope';
import { typedHandlers } from '../typed';

const DEFAULT_EXPIRES_IN_SECONDS = 900;

export const merchant = typedHandlers({
  createAccessToken: async ({ body }, ctx) => {
    const secret = ctx.req.header('secret-key');
    const remote = clientAddress(ctx) ?? 'unknown';
    const token = await ctx.services.accessTokens.issueAccessToken(body.api_key, secret, body.expires_in ?? DEFAULT_EXPIRES_IN_SECONDS, remote);
    return ok(token, 'Access token generated');
  },
});
export const admin = {};
