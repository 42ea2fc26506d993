import type { CallQuality } from '../../../contracts/records/call-quality';
import { qualityMark } from '../../../domain/call-quality';
import type { Names } from '../../names/names';

/**
 * A finished call's quality on its history row: Good, Fair or Poor, and why ("Poor: 11% of audio lost
 * (at Ann's end)."), as its tooltip and, for screen readers, in the text itself. Nothing for a call
 * no browser reported on. Thresholds: docs/call-quality.md.
 */
export function QualityMark({
  quality,
  me,
  names,
}: {
  quality: readonly CallQuality[];
  me: string | null;
  names: Names;
}) {
  // Named as everywhere else: "at Cat's end", never an email.
  const mark = qualityMark(quality, (identity) =>
    identity === me ? 'your' : `${names.person(identity).name}'s`,
  );
  if (!mark) return null;
  const [word, ...why] = mark.text.split(':');
  return (
    <span
      className={`quality-mark quality-mark--${mark.grade}`}
      title={mark.text}
      data-testid="call-quality-mark"
      data-grade={mark.grade}
    >
      {word}
      <span className="visually-hidden">:{why.join(':')}</span>
    </span>
  );
}
