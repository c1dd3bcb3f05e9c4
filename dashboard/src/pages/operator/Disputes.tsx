// Every business's card disputes (docs/contract/disputes.md), read-only: what each merchant must answer and
// the time left, newest first, of one status when chosen.
import { Section } from '../../ui/parts';
import { DisputeList } from '../shared/Disputes';

export function OperatorDisputes() {
  return (
    <>
      <h1>Disputes</h1>
      <p>Card disputes of every business. A dispute is its merchant&apos;s to answer; without an answer by the deadline the processor accepts it for the merchant.</p>
      <Section title="Disputes">
        <DisputeList />
      </Section>
    </>
  );
}
