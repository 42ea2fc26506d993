/**
 * One name per call parameter: the custom parameters a ringing call carries to the page (the
 * embedded voice service's `Params`, the TwiML `<Parameter>`s on Twilio) are named in
 * src/contracts/call-parameters.ts, and no code in src/ or server/ outside src/contracts spells one
 * itself (as a string, an object key or a property read): a name spelled differently on one side
 * silently shows nothing ("via Sales" never shown).
 */
import { relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CALL_PARAMETERS } from '../../../src/contracts/call-parameters';
import { codeFiles, parseCode } from './support/sources';

const NAMES = new Set<string>(Object.values(CALL_PARAMETERS));

/** Where a parameter's name is spelled out: a string, an object key, or a property read. */
function spelled(file: string): string[] {
  const source = parseCode(file);
  const found: string[] = [];
  const at = (node: ts.Node) =>
    `${relative('.', file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${node.getText()}`;
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) && NAMES.has(node.text) && !ts.isImportDeclaration(node.parent))
      found.push(at(node));
    if (
      (ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) &&
      ts.isIdentifier(node.name) &&
      NAMES.has(node.name.text)
    )
      found.push(at(node.name));
    if (ts.isPropertyAccessExpression(node) && NAMES.has(node.name.text)) found.push(at(node));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('call parameters', () => {
  it('are named only in src/contracts/call-parameters.ts', () => {
    expect(codeFiles.flatMap(spelled)).toEqual([]);
  }, 60_000);
});
