/**
 * A group's business hours (`schedule:{id}`) and holidays (`calendar:{id}`): each saved whole, and
 * only if the document is still `base` (the stored data the edit started from); otherwise the
 * answer carries what is stored now. Checked against the contract first.
 */
import { CALENDARS, SCHEDULES } from '../../../contracts/objects';
import type { JsonObject } from '../../../contracts/record';
import type { Calendar } from '../../../contracts/records/calendar';
import type { Schedule } from '../../../contracts/records/schedule';
import { calendarToData } from '../../../domain/calendar';
import { scheduleToData } from '../../../domain/schedule';
import { replaceDocumentIf, type DocumentActor } from '../core';
import type { SaveAnswer } from './written';

export function saveSchedule(
  doc: DocumentActor,
  base: JsonObject,
  schedule: Schedule,
): Promise<SaveAnswer> {
  return replaceDocumentIf(doc, SCHEDULES.record, base, scheduleToData(schedule));
}

export function saveCalendar(
  doc: DocumentActor,
  base: JsonObject,
  calendar: Calendar,
): Promise<SaveAnswer> {
  return replaceDocumentIf(doc, CALENDARS.record, base, calendarToData(calendar));
}
