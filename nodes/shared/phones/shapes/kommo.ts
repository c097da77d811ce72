import { isPlainObject } from '../../validation';
import type { PhoneShape } from './shape';

/**
 * Kommo (amoCRM): a contact's `custom_fields_values`, fields `{field_code, values: [{value}]}`
 * (`code` in its older webhooks); the PHONE field's values are the phones, other fields are left out.
 */
export const kommo: PhoneShape = {
	described: "Kommo's custom_fields_values",
	isEntry: (entry) =>
		Array.isArray(entry.values) &&
		('field_code' in entry || 'field_id' in entry || 'code' in entry),
	phonesOf: (entry) => ({
		phones:
			(entry.field_code ?? entry.code) === 'PHONE'
				? (entry.values as unknown[]).map((phone) =>
						isPlainObject(phone) && 'value' in phone ? phone.value : phone,
					)
				: [],
	}),
	listIn: (record) =>
		Array.isArray(record.custom_fields_values) ? record.custom_fields_values : undefined,
};
