import type { IDisplayOptions } from 'n8n-workflow';

/**
 * Version 2 of the action node (the default for new nodes) gives Call Task → Create the short panel
 * and Get / Get Many the Simplify switch. Version 1 keeps its panel and outputs, so stored
 * workflows run unchanged.
 */
export const SHORT_PANELS_VERSION = 2;

/** Shown from version 2 on. */
export const fromVersion2: IDisplayOptions = {
	show: { '@version': [{ _cnd: { gte: SHORT_PANELS_VERSION } }] },
};
/** Shown only before version 2 (version 1). */
export const beforeVersion2: IDisplayOptions = {
	show: { '@version': [{ _cnd: { lt: SHORT_PANELS_VERSION } }] },
};

/**
 * Version 3 (the default for new nodes) takes Callback Data as name/value pairs, each value a plain
 * field or an expression, beside the JSON; versions 1 and 2 keep the JSON field alone.
 */
const CALLBACK_PAIRS_VERSION = 3;

/** Shown from version 3 on. */
export const fromVersion3: IDisplayOptions = {
	show: { '@version': [{ _cnd: { gte: CALLBACK_PAIRS_VERSION } }] },
};
/** Shown only before version 3 (versions 1 and 2). */
export const beforeVersion3: IDisplayOptions = {
	show: { '@version': [{ _cnd: { lt: CALLBACK_PAIRS_VERSION } }] },
};
