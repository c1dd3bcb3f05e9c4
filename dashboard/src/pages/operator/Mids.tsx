// A business's MIDs (routing terminals): processor credentials are write-only (only whether a
// password is stored is shown), and each MID can be switched off or re-ranked.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap, unwrapPage } from '../../api';
import type { Admin } from '../../api';
import { CheckField, FormError, SelectField, TextField } from '../../ui/forms';
import { Guard } from '../../ui/guard';
import { LoadError, Loading, Notice, Section } from '../../ui/parts';
import { DataTable } from '../../ui/table';
import { asNumber, PAYMENT_METHODS } from '../../ui/values';

function traffic(t: Admin['AllowedTraffic']): string {
  return t === 'ALL' ? 'ALL' : t.join(', ');
}

function parseTraffic(text: string): Admin['AllowedTraffic'] {
  const t = text.trim().toUpperCase();
  return t === 'ALL' || t === '' ? 'ALL' : t.split(/[\s,]+/).filter(Boolean);
}

export function Mids({ businessId }: { businessId: number }) {
  const mids = useQuery({
    queryKey: ['mids', businessId],
    queryFn: () => unwrapPage(admin.GET('/v1/admin/businesses/{business_id}/mids', { params: { path: { business_id: businessId }, query: { per_page: 100 } } })),
  });
  const [editing, setEditing] = useState<number | null>(null);
  return (
    <Section title="MIDs (routing terminals)">
      {mids.isPending && <Loading what="MIDs" />}
      {mids.error && <LoadError error={mids.error} retry={() => mids.refetch()} />}
      {mids.data && mids.data.items.length === 0 && <p>No MID yet: collections are refused with NO_ROUTE until one is active. Add one below.</p>}
      {mids.data && mids.data.items.length > 0 && (
        <DataTable
          rows={mids.data.items}
          rowKey={(m) => m.id}
          columns={[
            { head: 'MID', cell: (m) => `#${m.id}` },
            { head: 'Processor', cell: (m) => m.service_type },
            { head: 'Method', cell: (m) => m.payment_method },
            { head: 'Currency', cell: (m) => m.currency },
            { head: 'Traffic', cell: (m) => traffic(m.allowed_traffic) },
            { head: 'Rank', cell: (m) => m.processing_rank },
            { head: 'Active', cell: (m) => (m.active ? 'yes' : 'no') },
            { head: 'Used for', cell: (m) => usedFor(m) },
            { head: 'Password', cell: (m) => (m.has_password ? 'stored' : 'none') },
            {
              head: 'Actions',
              hidden: true,
              cell: (m) => (
                <button type="button" className="small" onClick={() => setEditing(editing === m.id ? null : m.id)} aria-expanded={editing === m.id}>
                  Edit MID #{m.id}
                </button>
              ),
            },
          ]}
        />
      )}
      {editing !== null && mids.data?.items.find((m) => m.id === editing) && (
        <Guard need="operate">
          <EditMid key={editing} mid={mids.data.items.find((m) => m.id === editing) as Admin['Mid']} onDone={() => setEditing(null)} />
        </Guard>
      )}
      <Guard need="operate">
        <NewMid businessId={businessId} />
      </Guard>
    </Section>
  );
}

function NewMid({ businessId }: { businessId: number }) {
  const queries = useQueryClient();
  const blank = { business_name: '', service_type: 'sandbox', payment_method: 'MOBILE_MONEY', currency: '', traffic: 'ALL', operator: '', username: '', password: '', rank: '1' };
  const [f, setF] = useState(blank);
  const [rejectNew, setRejectNew] = useState(false);
  const [collects, setCollects] = useState(true);
  const [disburses, setDisburses] = useState(false);
  const set = (k: keyof typeof blank) => (v: string) => setF({ ...f, [k]: v });
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        admin.POST('/v1/admin/businesses/{business_id}/mids', {
          params: { path: { business_id: businessId } },
          body: {
            business_name: f.business_name,
            service_type: f.service_type,
            payment_method: f.payment_method as Admin['PaymentMethod'],
            currency: f.currency.trim().toUpperCase(),
            allowed_traffic: parseTraffic(f.traffic),
            merchant_operator: f.operator || undefined,
            merchant_username: f.username || undefined,
            merchant_password: f.password || undefined,
            processing_rank: asNumber(f.rank),
            reject_first_time_depositors: rejectNew,
            active: true,
            collects,
            disburses,
          },
        }),
      ),
    onSuccess: async () => {
      setF(blank);
      await queries.invalidateQueries({ queryKey: ['mids', businessId] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const e = create.error;
  return (
    <form onSubmit={submit} aria-label="Add a MID" className="form-grid">
      <h3 className="wide">Add a MID</h3>
      <TextField label="Business name at the processor" name="business_name" required error={e} value={f.business_name} onValue={set('business_name')} />
      <TextField label="Processor" name="service_type" required error={e} value={f.service_type} onValue={set('service_type')} hint="sandbox is the built-in simulator." />
      <SelectField label="Payment method" name="payment_method" error={e} options={PAYMENT_METHODS} value={f.payment_method} onValue={set('payment_method')} />
      <TextField label="Currency" name="currency" maxLength={3} required error={e} value={f.currency} onValue={set('currency')} />
      <TextField label="Allowed payer countries" name="allowed_traffic" error={e} value={f.traffic} onValue={set('traffic')} hint="ALL, or country codes separated by commas (UG, KE)." />
      <TextField label="Processing rank" name="processing_rank" inputMode="numeric" error={e} value={f.rank} onValue={set('rank')} hint="1 is tried first; equal ranks take turns." />
      <TextField label="Operator at the processor" name="merchant_operator" error={e} value={f.operator} onValue={set('operator')} />
      <TextField label="Username at the processor" name="merchant_username" autoComplete="off" error={e} value={f.username} onValue={set('username')} />
      <TextField label="Password at the processor" name="merchant_password" type="password" autoComplete="new-password" error={e} value={f.password} onValue={set('password')} hint="Write-only: stored encrypted, never shown again." />
      <CheckField label="Reject first-time depositors (cards)" name="reject_first_time_depositors" checked={rejectNew} onValue={setRejectNew} />
      <CheckField label="Collects (takes payments)" name="collects" checked={collects} onValue={setCollects} />
      <CheckField label="Disburses (pays out to phones or bank accounts)" name="disburses" checked={disburses} onValue={setDisburses} />
      <div className="wide">
        <FormError error={e} shown={['business_name', 'service_type', 'payment_method', 'currency', 'allowed_traffic', 'processing_rank', 'merchant_operator', 'merchant_username', 'merchant_password']} />
        <button type="submit" disabled={create.isPending}>
          Add MID
        </button>
      </div>
    </form>
  );
}

function EditMid({ mid, onDone }: { mid: Admin['Mid']; onDone: () => void }) {
  const queries = useQueryClient();
  const [rank, setRank] = useState(String(mid.processing_rank));
  const [active, setActive] = useState(mid.active);
  const [collects, setCollects] = useState(mid.collects);
  const [disburses, setDisburses] = useState(mid.disburses);
  const [password, setPassword] = useState('');
  const [saved, setSaved] = useState(false);
  const update = useMutation({
    mutationFn: () =>
      unwrap(
        admin.PATCH('/v1/admin/mids/{mid_id}', {
          params: { path: { mid_id: mid.id } },
          body: { processing_rank: asNumber(rank), active, collects, disburses, ...(password ? { merchant_password: password } : {}) },
        }),
      ),
    onSuccess: async () => {
      setSaved(true);
      setPassword('');
      await queries.invalidateQueries({ queryKey: ['mids', mid.business_id] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    update.mutate();
  };
  return (
    <form onSubmit={submit} aria-label={`Edit MID #${mid.id}`} className="form-grid edit">
      <h3 className="wide">Edit MID #{mid.id}</h3>
      {saved && <Notice>MID #{mid.id} saved.</Notice>}
      <TextField label="Processing rank" name="processing_rank" inputMode="numeric" error={update.error} value={rank} onValue={setRank} />
      <CheckField label="Active (can take payments)" name="active" checked={active} onValue={setActive} />
      <CheckField label="Collects (takes payments)" name="collects" checked={collects} onValue={setCollects} />
      <CheckField label="Disburses (pays out to phones or bank accounts)" name="disburses" checked={disburses} onValue={setDisburses} />
      <TextField label="New password at the processor" name="merchant_password" type="password" autoComplete="new-password" error={update.error} value={password} onValue={setPassword} hint={mid.has_password ? 'A password is stored; leave blank to keep it.' : 'No password is stored.'} />
      <div className="wide">
        <FormError error={update.error} shown={['processing_rank', 'active', 'merchant_password']} />
        <button type="submit" disabled={update.isPending}>
          Save MID
        </button>{' '}
        <CheckCredentials mid={mid} />{' '}
        <button type="button" className="secondary" onClick={onDone}>
          Close
        </button>
      </div>
    </form>
  );
}

/** Asks the processor for a token with the stored credentials; nothing changes, no payment is made. */
function CheckCredentials({ mid }: { mid: Admin['Mid'] }) {
  const check = useMutation({ mutationFn: () => unwrap(admin.POST('/v1/admin/mids/{mid_id}/check-credentials', { params: { path: { mid_id: mid.id } } })) });
  const result = check.data?.data;
  return (
    <>
      <button type="button" className="secondary" disabled={check.isPending} onClick={() => check.mutate()}>
        Check credentials
      </button>
      {result && (
        <p role="status" className={result.ok ? 'notice' : 'error'}>
          {result.ok ? 'The processor accepted the credentials' : 'The processor refused: check the username, password and processor address'} ({result.detail}).
        </p>
      )}
      <FormError error={check.error} />
    </>
  );
}

/** What a MID is for, in words: collections, disbursements, or both. */
function usedFor(m: Admin['Mid']): string {
  return [m.collects ? 'collections' : null, m.disburses ? 'disbursements' : null].filter(Boolean).join(' and ');
}
