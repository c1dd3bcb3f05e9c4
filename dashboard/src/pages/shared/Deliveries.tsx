// A collection's notifications with every delivery attempt, and a re-send of the latest one.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import type { Admin } from '../../api';
import { useCan } from '../../session';
import { FormError } from '../../ui/forms';
import { LoadError, Loading, Notice, Section, Time } from '../../ui/parts';
import { DataTable } from '../../ui/table';

export function Deliveries({ reference, final }: { reference: string; final: boolean }) {
  const queries = useQueryClient();
  const mayResend = useCan('resend');
  const path = { gateway_reference: reference };
  const log = useQuery({ queryKey: ['deliveries', reference], queryFn: () => unwrap(admin.GET('/v1/admin/collections/{gateway_reference}/notifications', { params: { path } })) });
  const resend = useMutation({
    mutationFn: () => unwrap(admin.POST('/v1/admin/collections/{gateway_reference}/notify', { params: { path } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['deliveries', reference] }),
  });
  const action = mayResend && (
    <button type="button" disabled={!final || resend.isPending} onClick={() => resend.mutate()} title={final ? undefined : 'A payment still PENDING has nothing to re-send yet'}>
      Re-send webhook
    </button>
  );
  return (
    <Section title="Webhook deliveries" actions={action}>
      {resend.isSuccess && <Notice>Re-send queued: the latest notification goes out again with the same webhook-id.</Notice>}
      <FormError error={resend.error} />
      {log.isPending && <Loading what="the delivery log" />}
      {log.error && <LoadError error={log.error} retry={() => log.refetch()} />}
      {log.data && log.data.data.length === 0 && <p>No notification yet: one is sent when the payment leaves PENDING.</p>}
      {log.data?.data.map((n) => <Notification key={n.event_id} n={n} />)}
    </Section>
  );
}

function Notification({ n }: { n: Admin['NotificationLogEntry'] }) {
  return (
    <article className="delivery" aria-label={`Notification ${n.sequence}`}>
      <p>
        <strong>#{n.sequence}</strong> {n.transaction_status} · <code>{n.event_id}</code> ·{' '}
        {n.delivered ? (
          <>
            delivered <Time at={n.delivered_at} />
          </>
        ) : n.next_attempt_at ? (
          <>
            not delivered yet; next attempt <Time at={n.next_attempt_at} />
          </>
        ) : (
          'not delivered; retries exhausted: fix the endpoint, then re-send'
        )}
      </p>
      {n.attempts.length > 0 && (
        <DataTable
          rows={n.attempts}
          rowKey={(a) => a.attempt}
          columns={[
            { head: 'Attempt', cell: (a) => a.attempt },
            { head: 'At', cell: (a) => <Time at={a.at} /> },
            { head: 'Answer', cell: (a) => a.error ?? `HTTP ${a.http_status}` },
            { head: 'Took', num: true, cell: (a) => `${a.duration_ms} ms` },
          ]}
        />
      )}
    </article>
  );
}
