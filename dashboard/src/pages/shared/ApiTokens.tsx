// A business's API tokens (at most two). The secret is shown once, right after it is made, then
// only masked; a lost secret is regenerated. Webhook URL, webhook hash and email flags are edited here;
// an owner also gives a token's IP allowlist, at creation or later: a narrower list applies at once, a
// wider one (in live, also a first one) after its notice, every owner told, and an owner can stop it.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap, unwrapPage } from '../../api';
import type { Admin } from '../../api';
import { CheckField, Field, FormError, TextField } from '../../ui/forms';
import { Guard } from '../../ui/guard';
import { useCan, useSession } from '../../session';
import { LoadError, Loading, Notice, Section, Time } from '../../ui/parts';
import { ScheduledChanges } from '../../ui/scheduled';

const MAX_TOKENS = 2;
const MASK = '••••••••••••••••';

/** `page`: shown as a page of its own (the merchant's), not a section of the business page. */
export function ApiTokens({ businessId, page = false }: { businessId: number; page?: boolean }) {
  const tokens = useQuery({
    queryKey: ['tokens', businessId],
    queryFn: () => unwrapPage(admin.GET('/v1/admin/businesses/{business_id}/api-tokens', { params: { path: { business_id: businessId } } })),
  });
  const [revealed, setRevealed] = useState<Admin['ApiTokenWithSecret'] | null>(null);
  const body = (
    <Section title="API tokens">
      {revealed && <SecretOnce token={revealed} onDone={() => setRevealed(null)} />}
      {tokens.isPending && <Loading what="API tokens" />}
      {tokens.error && <LoadError error={tokens.error} retry={() => tokens.refetch()} />}
      {tokens.data?.items.map((t) => <TokenCard key={t.id} token={t} onSecret={setRevealed} />)}
      {tokens.data && tokens.data.items.length === 0 && <p>No API token yet: the merchant cannot call the API until you create one.</p>}
      <Guard need="tokens">
        <NewToken businessId={businessId} full={(tokens.data?.items.length ?? 0) >= MAX_TOKENS} onSecret={setRevealed} />
      </Guard>
    </Section>
  );
  if (!page) return body;
  return (
    <>
      <h1>API tokens and webhooks</h1>
      <p>Your integration signs in with a token's key and secret; notifications go to its webhook URL, signed with its webhook hash.</p>
      {body}
    </>
  );
}

/** The only moment the secret is visible: copied now or regenerated later. */
function SecretOnce({ token, onDone }: { token: Admin['ApiTokenWithSecret']; onDone: () => void }) {
  return (
    <div className="secret" role="region" aria-label="New API secret">
      <p>
        <strong>Copy the secret now.</strong> It is shown only this once; PayCollect keeps only a hash of it. If it is lost, regenerate the token.
      </p>
      <dl>
        <dt>API key</dt>
        <dd>
          <code>{token.api_key}</code>
        </dd>
        <dt>API secret</dt>
        <dd>
          <code data-testid="api-secret">{token.api_secret}</code>
        </dd>
      </dl>
      <button type="button" onClick={onDone} autoFocus>
        I have stored the secret
      </button>
    </div>
  );
}

function TokenCard({ token, onSecret }: { token: Admin['ApiToken']; onSecret: (t: Admin['ApiTokenWithSecret']) => void }) {
  const queries = useQueryClient();
  const path = { token_id: token.id };
  const refresh = () => queries.invalidateQueries({ queryKey: ['tokens', token.business_id] });
  const regenerate = useMutation({
    mutationFn: () => unwrap(admin.POST('/v1/admin/api-tokens/{token_id}/regenerate', { params: { path } })),
    onSuccess: async (body) => {
      onSecret(body.data);
      await refresh();
    },
  });
  const remove = useMutation({ mutationFn: () => unwrap(admin.DELETE('/v1/admin/api-tokens/{token_id}', { params: { path } })), onSuccess: refresh });
  // an owner stops a wider list that waits by setting the list again to the one in force
  const stop = useMutation({
    mutationFn: () => unwrap(admin.PATCH('/v1/admin/api-tokens/{token_id}', { params: { path }, body: { ip_allowlist: token.ip_allowlist } })),
    onSuccess: refresh,
  });
  const [editing, setEditing] = useState(false);
  const mayChange = useCan('tokens');
  const owner = useSession().user.role !== 'merchant_developer';
  return (
    <article className="token" aria-label={`API token ${token.api_key}`}>
      <dl className="pairs">
        <dt>API key</dt>
        <dd>
          <code>{token.api_key}</code>
        </dd>
        <dt>API secret</dt>
        <dd>
          <code aria-label="secret hidden">{MASK}</code>
        </dd>
        <dt>Webhook URL</dt>
        <dd>{token.webhook_url}</dd>
        <dt>Notification email</dt>
        <dd>
          {token.notification_email} {token.email_merchant ? '(payment notices on)' : '(payment notices off)'}; customer receipts {token.email_user ? 'on' : 'off'}
        </dd>
        <dt>Disbursements from</dt>
        <dd>{token.ip_allowlist ? token.ip_allowlist.join(', ') : 'no IP allowlist (in live, disbursements are refused)'}</dd>
        <dt>Created</dt>
        <dd>
          <Time at={token.created_at} />
        </dd>
      </dl>
      {mayChange && (
      <div className="actions">
        <button type="button" className="small" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          Edit webhook and email
        </button>
        <button type="button" className="small" disabled={regenerate.isPending} onClick={() => window.confirm('Regenerate? The current key and secret stop working at once.') && regenerate.mutate()}>
          Regenerate
        </button>
        <button type="button" className="small danger" disabled={remove.isPending} onClick={() => window.confirm('Delete this token? Calls made with it are refused at once.') && remove.mutate()}>
          Delete
        </button>
      </div>
      )}
      <FormError error={regenerate.error ?? remove.error} />
      {editing && <EditToken token={token} onDone={() => setEditing(false)} />}
      <ScheduledChanges changes={token.scheduled_changes} stop={owner ? () => stop.mutate() : undefined} stopping={stop.isPending} />
      <FormError error={stop.error} />
      {mayChange && <AllowlistForm token={token} />}
    </article>
  );
}

interface Settings {
  notification_email: string;
  webhook_url: string;
  webhook_hash: string;
  email_merchant: boolean;
  email_user: boolean;
}

function SettingsFields({ s, set, error, hashHint }: { s: Settings; set: (s: Settings) => void; error: unknown; hashHint: string }) {
  return (
    <>
      <TextField label="Webhook URL" name="webhook_url" type="url" error={error} value={s.webhook_url} onValue={(v) => set({ ...s, webhook_url: v })} />
      <TextField label="Webhook hash (signing secret)" name="webhook_hash" type="password" autoComplete="new-password" error={error} value={s.webhook_hash} onValue={(v) => set({ ...s, webhook_hash: v })} hint={hashHint} />
      <TextField label="Notification email" name="notification_email" type="email" error={error} value={s.notification_email} onValue={(v) => set({ ...s, notification_email: v })} />
      <CheckField label="Email payment notices to this address" name="email_merchant" checked={s.email_merchant} onValue={(v) => set({ ...s, email_merchant: v })} />
      <CheckField label="Email receipts to customers" name="email_user" checked={s.email_user} onValue={(v) => set({ ...s, email_user: v })} />
    </>
  );
}

const SETTINGS_FIELDS = ['webhook_url', 'webhook_hash', 'notification_email', 'email_merchant', 'email_user'];

function NewToken({ businessId, full, onSecret }: { businessId: number; full: boolean; onSecret: (t: Admin['ApiTokenWithSecret']) => void }) {
  const queries = useQueryClient();
  const blank: Settings = { notification_email: '', webhook_url: '', webhook_hash: '', email_merchant: false, email_user: false };
  const [s, set] = useState(blank);
  const owner = useSession().user.role !== 'merchant_developer';
  const [allowlist, setAllowlist] = useState('');
  const create = useMutation({
    mutationFn: () => {
      const list = allowlistOf(allowlist);
      const body = owner && list ? { ...s, ip_allowlist: list } : s;
      return unwrap(admin.POST('/v1/admin/businesses/{business_id}/api-tokens', { params: { path: { business_id: businessId } }, body }));
    },
    onSuccess: async (body) => {
      set(blank);
      setAllowlist('');
      onSecret(body.data);
      await queries.invalidateQueries({ queryKey: ['tokens', businessId] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="New API token" className="form-grid">
      <h3 className="wide">New API token</h3>
      {full && <p className="wide muted">This business already has two tokens, the most allowed: delete one, or regenerate one to replace its secret.</p>}
      <SettingsFields s={s} set={set} error={create.error} hashHint="At least 16 characters; the merchant verifies webhook signatures with it." />
      {owner && <AllowlistField text={allowlist} setText={setAllowlist} error={create.error} emptyMeans="Empty: no list (set one later)." />}
      <div className="wide">
        <FormError error={create.error} shown={[...SETTINGS_FIELDS, 'ip_allowlist']} />
        <button type="submit" disabled={create.isPending}>
          Create token
        </button>
      </div>
    </form>
  );
}

function EditToken({ token, onDone }: { token: Admin['ApiToken']; onDone: () => void }) {
  const queries = useQueryClient();
  const [s, set] = useState<Settings>({ ...token, webhook_hash: '' });
  const [saved, setSaved] = useState(false);
  const update = useMutation({
    mutationFn: () => {
      const { webhook_hash, ...rest } = s;
      return unwrap(admin.PATCH('/v1/admin/api-tokens/{token_id}', { params: { path: { token_id: token.id } }, body: webhook_hash ? s : rest }));
    },
    onSuccess: async () => {
      setSaved(true);
      await queries.invalidateQueries({ queryKey: ['tokens', token.business_id] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    update.mutate();
  };
  return (
    <form onSubmit={submit} aria-label={`Edit API token ${token.api_key}`} className="form-grid edit">
      {saved && <Notice>Settings saved. Notifications created from now on use them.</Notice>}
      <SettingsFields s={s} set={set} error={update.error} hashHint="Leave blank to keep the current hash; a new one needs at least 16 characters." />
      <div className="wide">
        <FormError error={update.error} shown={SETTINGS_FIELDS} />
        <button type="submit" disabled={update.isPending}>
          Save settings
        </button>{' '}
        <button type="button" className="secondary" onClick={onDone}>
          Close
        </button>
      </div>
    </form>
  );
}

/** The token's IP allowlist, one address or CIDR block a line; an owner's to set (the server refuses a developer). */
function AllowlistForm({ token }: { token: Admin['ApiToken'] }) {
  const queries = useQueryClient();
  const owner = useSession().user.role !== 'merchant_developer';
  const [text, setText] = useState((token.ip_allowlist ?? []).join('\n'));
  const [saved, setSaved] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: () => unwrap(admin.PATCH('/v1/admin/api-tokens/{token_id}', { params: { path: { token_id: token.id } }, body: { ip_allowlist: allowlistOf(text) } })),
    onSuccess: async (answer) => {
      setSaved(answer.data.scheduled_changes.length > 0 ? 'Asked for: the wider list takes effect after its notice (shown above), and every owner has been emailed.' : 'IP allowlist saved.');
      await queries.invalidateQueries({ queryKey: ['tokens', token.business_id] });
    },
  });
  if (!owner) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(null);
    save.mutate();
  };
  return (
    <form onSubmit={submit} aria-label={`IP allowlist of ${token.api_key}`} className="form-grid edit">
      {saved && <Notice>{saved}</Notice>}
      <AllowlistField text={text} setText={setText} error={save.error} emptyMeans="A narrower list applies at once; a wider one takes effect only after a notice period, and every owner is emailed." />
      <div className="wide">
        <FormError error={save.error} shown={['ip_allowlist']} />
        <button type="submit" disabled={save.isPending}>
          Save allowlist
        </button>
      </div>
    </form>
  );
}

/** The allowlist as typed (one entry a line, or separated by commas or spaces): null when empty. */
function allowlistOf(text: string): string[] | null {
  const list = text.split(/[\s,]+/).filter((l) => l !== '');
  return list.length ? list : null;
}

/** The IP allowlist's field, in the new token's form and in a token's own; the API's errors for an entry (`ip_allowlist.<i>`) show here. */
function AllowlistField({ text, setText, error, emptyMeans }: { text: string; setText: (t: string) => void; error: unknown; emptyMeans: string }) {
  return (
    <div className="wide">
      <Field
        label="IP allowlist"
        name="ip_allowlist"
        error={error}
        hint={`The addresses this token's disbursements may come from, one IP address or CIDR block (203.0.113.0/24) a line. ${emptyMeans}`}
      >
        {(a) => <textarea {...a} rows={3} value={text} onChange={(e) => setText(e.target.value)} />}
      </Field>
    </div>
  );
}
