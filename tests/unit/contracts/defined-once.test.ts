/**
 * Every Sync object is named once, in src/contracts/objects.ts: no string literal in src/ or
 * server/ (outside src/contracts) names a shared object or builds a name of an object family.
 * Every record is typed once: the record files of src/contracts/records define them and nothing
 * else declares a type with a record's name.
 */
import { relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { NAMED_OBJECTS, OBJECT_FAMILIES } from '../../../src/contracts/objects';
import { codeFiles, parseCode, readCode } from './support/sources';

const files = codeFiles;

const names = new Set(NAMED_OBJECTS.map((o) => o.name));
const prefixes = OBJECT_FAMILIES.map((o) => o.prefix);

/**
 * A literal equal to an object's name that is not one: a value compared or set as a `kind`, `type`
 * or `id` (an announcement's kind `'audio'`, a machine's id), a literal type, a test id or class in
 * JSX, or a folder in a `join()` of a path.
 */
function isOtherUse(node: ts.Node): boolean {
  const parent = node.parent;
  if (ts.isLiteralTypeNode(parent) || ts.isJsxAttribute(parent)) return true;
  if (ts.isJsxExpression(parent) && ts.isJsxAttribute(parent.parent)) return true;
  if (ts.isCallExpression(parent) && parent.expression.getText() === 'join') return true;
  if (ts.isPropertyAssignment(parent) && parent.initializer === node)
    return ['kind', 'type', 'id', 'testId'].includes(parent.name.getText());
  if (ts.isBinaryExpression(parent)) {
    const other = parent.left === node ? parent.right : parent.left;
    return /\.(kind|type)$/.test(other.getText()) || /^(kind|type)$/.test(other.getText());
  }
  if (ts.isCaseClause(parent)) return true;
  return false;
}

interface Finding {
  file: string;
  line: number;
  text: string;
}

function literalsNamingObjects(file: string): Finding[] {
  const source = parseCode(file);
  const found: Finding[] = [];
  const visit = (node: ts.Node): void => {
    let value: string | null = null;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) value = node.text;
    else if (ts.isTemplateExpression(node)) value = node.head.text;
    if (
      value !== null &&
      !ts.isImportDeclaration(node.parent) &&
      !ts.isExportDeclaration(node.parent)
    ) {
      const named = names.has(value) && !isOtherUse(node);
      const family = prefixes.some((p) => value.startsWith(p));
      if (named || family) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        found.push({ file, line: line + 1, text: node.getText().slice(0, 60) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('one definition per Sync object and record', () => {
  it('names every shared object only in src/contracts', () => {
    const findings = files.flatMap(literalsNamingObjects);
    expect(findings.map((f) => `${relative('.', f.file)}:${f.line} ${f.text}`)).toEqual([]);
  });

  it('types each record only in src/contracts/records', () => {
    const recordTypes = [
      'Contact',
      'CallRecord',
      'Hold',
      'UserEntry',
      'Presence',
      'Group',
      'Announcement',
      'AudioFile',
      'Schedule',
      'Calendar',
      'Holiday',
      'Rule',
      'Settings',
      'TrailStep',
    ];
    const declared: string[] = [];
    for (const file of files) {
      const text = readCode(file);
      for (const type of recordTypes) {
        const pattern = new RegExp(
          `^export (interface|type) ${type}\\b(?! =\\s*(import|[A-Z]\\w*\\['))`,
          'm',
        );
        if (pattern.test(text)) declared.push(`${file}: ${type}`);
      }
    }
    expect(declared).toEqual([]);
  });
});
