// A customer on a payment link's page, as a browser without JavaScript is: it opens the page (keeping the
// CSRF cookie and the form's value) and posts the form, following no redirect.
export interface OpenedLink {
  status: number;
  html: string;
  cookie: string;
  csrf: string;
}

export async function openLink(baseUrl: string, linkId: string): Promise<OpenedLink> {
  const res = await fetch(`${baseUrl}/l/${linkId}`);
  const html = await res.text();
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  return { status: res.status, html, cookie, csrf };
}

/** Posts the form opened before; `withCsrf` false leaves the CSRF value out. */
export async function postLink(baseUrl: string, linkId: string, opened: Pick<OpenedLink, 'cookie' | 'csrf'>, form: Record<string, string>, withCsrf = true) {
  const res = await fetch(`${baseUrl}/l/${linkId}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: opened.cookie },
    body: new URLSearchParams(withCsrf ? { csrf: opened.csrf, ...form } : form).toString(),
  });
  return { status: res.status, location: res.headers.get('location'), html: await res.text() };
}
