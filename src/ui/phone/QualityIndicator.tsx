import { TriangleAlert } from 'lucide-react';
import { warningTexts } from '../../domain/call-quality';
import './quality.css';

/**
 * The call's quality warnings, as the Voice SDK raises them (a lossy or slow network, choppy audio,
 * a low quality estimate, a microphone that seems muted), in words; gone when the SDK clears them.
 * A polite live region that stays on the card while the call is on, so each new warning is read out.
 */
export function QualityIndicator({ warnings }: { warnings: readonly string[] }) {
  const texts = warningTexts(warnings);
  return (
    <div
      className="call-quality"
      role="status"
      data-testid="call-quality"
      data-warnings={warnings.join(' ') || undefined}
    >
      {texts.map((text) => (
        <p key={text} className="call-quality__warning">
          <TriangleAlert aria-hidden="true" focusable="false" size={16} />
          {text}
        </p>
      ))}
    </div>
  );
}
