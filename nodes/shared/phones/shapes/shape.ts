import type { IDataObject } from 'n8n-workflow';

/**
 * How one CRM keeps phones (one file per CRM in this folder, listed in shapes/index.ts): how to tell
 * its entry, and the phones an entry holds.
 */
export interface PhoneShape {
	/** For the hint that names the shapes, e.g. "Pipedrive's entries with value". */
	described: string;
	/** Whether an entry of a list (or a lone object) is this CRM's. */
	isEntry(entry: IDataObject): boolean;
	/** The phones of one entry, and whether the entry is the primary number (called first). */
	phonesOf(entry: IDataObject): { phones: unknown[]; primary?: boolean };
	/** A whole record of this CRM (a contact) given in place of its list: the list inside it. */
	listIn?(record: IDataObject): unknown[] | undefined;
}
