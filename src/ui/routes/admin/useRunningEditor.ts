import { useEffect, useRef } from 'react';
import type { JsonObject } from '../../../machines/syncPorts';
import type { EditorActor } from './EditorFrame';

/**
 * Runs an editor actor for as long as the component lives, and feeds it someone else's saves as
 * they arrive through the container (`revision` is the stored revision; `read` gives the stored
 * values in the editor's form): the machine follows them while nothing is unsaved, and keeps them
 * aside otherwise.
 */
export function useRunningEditor(
  editor: EditorActor | null,
  revision: string | undefined,
  read: () => JsonObject | null,
): void {
  const readRef = useRef(read);
  useEffect(() => {
    readRef.current = read;
  });
  useEffect(() => {
    if (!editor || revision === undefined) return;
    const base = editor.getSnapshot().context.base;
    if (base === null || base.revision === revision) return;
    const values = readRef.current();
    if (values === null) return;
    editor.send({ type: 'editor.remoteChanged', current: { values, revision } });
  }, [editor, revision]);
  useEffect(() => {
    if (!editor) return;
    editor.start();
    return () => {
      editor.stop();
    };
  }, [editor]);
}
