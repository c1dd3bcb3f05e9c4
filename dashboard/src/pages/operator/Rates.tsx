// The operator's watch of market rates (getFxRateWatch): each pair's rate in use with its source, age and a
// stale mark, each daily feed's last refresh and error, and the jumps held for a decision, each with Accept
// and Refuse for an operator admin after a confirmation naming the old rate, the new one and the move.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import type { Admin } from '../../api';
import { FormError } from '../../ui/forms';
import { Guard } from '../../ui/guard';
import { LoadError, Loading, Notice, Section, Time } from '../../ui/parts';
import { DataTable } from '../../ui/table';

type Jump = Admin['FxRateJump'];

export const WATCH_KEY = ['fx-rate-watch'];

/** An age in words: "3 d 4 h", "5 h 20 min", "40 min". */
export function ageText(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const min = Math.floor((seconds % 3600) / 60);
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${min} min`;
  return `${min} min`;
}

const signed = (percent: number) => `${percent > 0 ? '+' : ''}${percent}%`;

export function RateWatch() {
  const watch = useQuery({ queryKey: WATCH_KEY, queryFn: () => unwrap(admin.GET('/v1/admin/fx-rates/watch', {})) });
  if (watch.isPending) return <Loading what="market rates" />;
  if (watch.error) return <LoadError error={watch.error} retry={() => watch.refetch()} />;
  const { pairs, feeds } = watch.data.data;
  const held = pairs.flatMap((p) => (p.held_jump ? [p.held_jump] : []));
  return (
    <>
      {held.length > 0 && <HeldJumps jumps={held} />}
      <Section title="Pairs">
        {pairs.length === 0 && <p>No market rate yet: a collection in a currency the business has no wallet for is refused.</p>}
        {pairs.length > 0 && (
          <DataTable
            label="Market rates in use"
            rows={pairs}
            rowKey={(p) => p.base + p.quote}
            stacked
            columns={[
              { head: 'Pair', cell: (p) => `${p.base} → ${p.quote}` },
              { head: 'Rate', num: true, cell: (p) => p.rate },
              { head: 'Source', cell: (p) => p.source },
              { head: 'As of', cell: (p) => <Time at={p.as_of} /> },
              { head: 'Age', cell: (p) => ageText(p.age_seconds) },
              {
                head: 'State',
                cell: (p) => (
                  <>
                    {p.stale ? <span className="status status-failed">Stale</span> : <span className="status status-completed">Current</span>}
                    {p.held_jump && <span className="status status-held">Jump held</span>}
                  </>
                ),
              },
            ]}
          />
        )}
      </Section>
      <Section title="Feeds">
        <DataTable
          label="Rate feeds"
          rows={feeds}
          rowKey={(f) => f.name}
          stacked
          columns={[
            { head: 'Feed', cell: (f) => f.name },
            { head: 'Last refresh', cell: (f) => (f.last_attempt_at ? <Time at={f.last_attempt_at} /> : f.configured ? 'never' : 'not configured') },
            { head: 'Last success', cell: (f) => (f.last_success_at ? <Time at={f.last_success_at} /> : 'never') },
            { head: 'Last error', className: 'break', cell: (f) => f.last_error ?? 'none' },
          ]}
        />
      </Section>
    </>
  );
}

function HeldJumps({ jumps }: { jumps: Jump[] }) {
  return (
    <Section title="Held rate jumps">
      <p>
        A feed's new rate moved more than the guard allows, so it is not used: the rate in use goes on converting until it goes stale. Check the move against another source, then accept it (it becomes the rate in use) or refuse it.
      </p>
      <DataTable
        label="Jumps held for a decision"
        rows={jumps}
        rowKey={(j) => j.base + j.quote}
        stacked
        columns={[
          { head: 'Pair', cell: (j) => `${j.base} → ${j.quote}` },
          { head: 'In use', num: true, cell: (j) => j.previous_rate },
          { head: 'Held', num: true, cell: (j) => j.rate },
          { head: 'Move', num: true, cell: (j) => signed(j.move_percent) },
          { head: 'From', cell: (j) => <>{j.source}, as of <Time at={j.as_of} /></> },
          { head: 'Decision', hidden: true, cell: (j) => <JumpDecision jump={j} /> },
        ]}
      />
    </Section>
  );
}

function JumpDecision({ jump }: { jump: Jump }) {
  const queries = useQueryClient();
  const pair = `${jump.base}/${jump.quote}`;
  const decide = useMutation({
    mutationFn: (what: 'accept' | 'refuse') =>
      unwrap(
        admin.POST(what === 'accept' ? '/v1/admin/fx-rates/{base}/{quote}/held-jump/accept' : '/v1/admin/fx-rates/{base}/{quote}/held-jump/refuse', {
          params: { path: { base: jump.base, quote: jump.quote } },
          body: { rate: jump.rate },
        }),
      ),
    onSettled: async () => {
      await queries.invalidateQueries({ queryKey: WATCH_KEY });
      await queries.invalidateQueries({ queryKey: ['fx-rates'] });
    },
  });
  const ask = (what: 'accept' | 'refuse') => {
    const move = `${pair}: in use ${jump.previous_rate}, held ${jump.rate} (${signed(jump.move_percent)}).`;
    const effect = what === 'accept' ? 'The held rate becomes the rate in use.' : 'The held rate is discarded; the rate in use is kept.';
    if (window.confirm(`${what === 'accept' ? 'Accept' : 'Refuse'} the rate jump of ${move} ${effect} This is decided once.`)) decide.mutate(what);
  };
  if (decide.isSuccess) return <Notice>{decide.data.data.decision === 'accepted' ? 'Accepted' : 'Refused'}</Notice>;
  return (
    <Guard need="operate">
      <div className="actions">
        <button type="button" disabled={decide.isPending} onClick={() => ask('accept')} aria-label={`Accept the ${pair} jump`}>
          Accept
        </button>
        <button type="button" disabled={decide.isPending} onClick={() => ask('refuse')} aria-label={`Refuse the ${pair} jump`}>
          Refuse
        </button>
      </div>
      <FormError error={decide.error} />
    </Guard>
  );
}
