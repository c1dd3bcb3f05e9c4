import type { Handler } from '../context';
import { ok } from '../envelope';

const DEFAULT_EXPIRES_IN_SECONDS = 900;

export const createAccessToken: Handler = async (c, ctx) => {
  const body = c.request.requestBody as { api_key: string; expires_in?: number };
  const secret = ctx.req.header('secret-key');
  const token = await ctx.services.auth.issueAccessToken(
    body.api_key,
    secret,
    body.expires_in ?? DEFAULT_EXPIRES_IN_SECONDS,
    ctx.req.socket.remoteAddress ?? 'unknown',
  );
  return ok(token, 'Access token generated');
};
