/** The call machine's adapter actions (the Voice SDK's Call), each given by `as(name)`. */
export function callAdapterActions<A>(as: (name: string) => A) {
  return {
    placeCall: as('placeCall'),
    acceptCall: as('acceptCall'),
    rejectCall: as('rejectCall'),
    ignoreCall: as('ignoreCall'),
    hangUpCall: as('hangUpCall'),
    setMuted: as('setMuted'),
    sendDigits: as('sendDigits'),
  };
}
