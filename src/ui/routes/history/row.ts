/**
 * A call of /history as one person reads it: who the other party is (by name, with the extension or
 * number beside it), which way it went for them, its whole trail in words, who Call back dials, and
 * whether a voicemail message in it is unread for them. Pure: names come in (src/ui/names).
 */
import type { TrailStep } from '../../../contracts/records/call';
import type { Names, Party } from '../../names/names';
import { directionFor, placedByColleague, type Call } from './call';

/** A call's trail, step by step, as a person reads it ("Put on hold by Ben Agent · …"). */
export function describeTrail(trail: readonly TrailStep[], names: Names): string {
  const who = (identity: string) => names.person(identity).name;
  return trail
    .map((step) => {
      switch (step.action) {
        case 'held':
          return `Put on hold by ${who(step.by)}`;
        case 'resumed':
          return `Taken off hold by ${who(step.by)}`;
        case 'parked':
          return `Parked by ${who(step.by)}`;
        case 'pickedUp':
          return `Picked up by ${who(step.by)}`;
        case 'rangBack':
          return `Rang back to ${who(step.by)}`;
        case 'transferred':
          return `Transferred to ${step.to ? who(step.to) : 'someone'} by ${who(step.by)}`;
      }
    })
    .join(' · ');
}

/** The address the caller called from: `client:<identity>` for a colleague, else their number. */
function callerAddress(call: Call): string {
  if (call.from === '') return '';
  return placedByColleague(call) || (call.user === '' && call.from.includes('@'))
    ? `client:${call.from}`
    : call.from;
}

/** Who the row is about, and where Call back goes. */
export interface RowParty {
  /** The other party: the caller, or whoever was called when `me` placed it. */
  party: Party;
  /** The ring group it came through ("Support · 200"), or null. */
  group: Party | null;
  /** Who Call back dials (the caller, never the group they called), or null when nobody can be. */
  callBack: { to: string; label: string } | null;
}

export function rowParty(call: Call, me: string | null, names: Names): RowParty {
  const group = call.group ? names.group(call.group, call.groupName) : null;
  const caller = callerAddress(call);
  const mine = me !== null && call.from === me;
  // The other side: the person called when I called; otherwise whoever called.
  let to: string;
  if (call.callee && !call.group) to = mine ? `client:${call.callee}` : caller;
  else if (call.group && call.direction === 'outbound' && !placedByColleague(call)) to = call.to;
  else if (call.group) to = mine ? '' : caller;
  else to = directionFor(call, me) === 'outbound' ? call.to : caller;
  if (call.test && mine) to = '';
  const party =
    to !== ''
      ? names.address(to)
      : group
        ? { name: call.test ? `Test call to ${group.name}` : group.name, detail: group.detail }
        : names.address(call.to);
  const dial = to !== '' ? to : call.group && !call.test ? (group?.detail ?? call.to) : '';
  return {
    party,
    group,
    callBack: dial === '' ? null : { to: dial, label: party.name },
  };
}

/** Whether the call's voicemail message is one `me` has not heard yet. */
export function unheard(
  call: Call,
  heard: { voicemailHeard: readonly string[]; voicemailHeardBefore: number },
): boolean {
  if (!call.voicemail) return false;
  if (heard.voicemailHeard.includes(call.voicemail.id)) return false;
  const at = call.endedAt ?? call.startedAt ?? 0;
  return at >= heard.voicemailHeardBefore;
}
