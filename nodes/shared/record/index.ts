// A node's record of keys across executions (n8n's database, or this process's memory): used by
// Repeat Protection and by the daily limits.
export { type NodeRecord, type ChangesAlone, MAX_RECORD_ENTRIES, recordOf, scopeOf } from './store';
export { idOfKey, partOfKey, Window, WINDOW_PARTS } from './keys';
