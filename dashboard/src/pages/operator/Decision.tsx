// An operator admin's decision on something held for them (a payment's processor request, a refund): the
// outcome and the note kept with it in the audit log, the same fields on each resolve form.
import { TextField } from '../../ui/forms';

export type Outcome = 'COMPLETED' | 'FAILED';

/** `error`: the resolve call's, shown at the note it names. */
export function DecisionFields({ outcome, onOutcome, note, onNote, error }: { outcome: Outcome | ''; onOutcome: (o: Outcome) => void; note: string; onNote: (v: string) => void; error: unknown }) {
  return (
    <>
      <fieldset className="field">
        <legend>Outcome</legend>
        {(['COMPLETED', 'FAILED'] as const).map((o) => (
          <label key={o} className="check">
            <input type="radio" name="outcome" value={o} checked={outcome === o} onChange={() => onOutcome(o)} /> {o}
          </label>
        ))}
      </fieldset>
      <TextField label="Note" name="note" error={error} hint="What the processor confirmed (kept in the audit log)." value={note} onValue={onNote} />
    </>
  );
}
