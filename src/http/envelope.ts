// The response envelope of CONTRACT.md section 2, and the shape every handler returns.
export interface Reply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** defaults to application/json; the body is then serialised as JSON */
  contentType?: string;
}

export function ok(data: unknown, message: string, headers?: Record<string, string>): Reply {
  return { body: { code: 200, status: 'success', message, data }, headers };
}

export function accepted(data: unknown, message: string, headers?: Record<string, string>): Reply {
  return { body: { code: 200, status: 'accepted', message, data }, headers };
}
