import { bitrix24 } from './bitrix24';
import { kommo } from './kommo';
import { pipedrive } from './pipedrive';
import type { PhoneShape } from './shape';

export type { PhoneShape } from './shape';

/** The CRM shapes, in the order an entry is tried against them (Kommo's fields first: they are told by more keys). */
export const CRM_SHAPES: readonly PhoneShape[] = [kommo, pipedrive, bitrix24];

const named = CRM_SHAPES.map((shape) => shape.described);

/** The hint for a value that is no number: where the number is, in words. */
export const PICK_THE_PHONE = `pick the field that holds the number, or a CRM's phone list (${named.slice(0, -1).join(', ')} or ${named[named.length - 1]})`;
