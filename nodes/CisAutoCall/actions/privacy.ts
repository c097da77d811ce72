import type { INodeProperties } from 'n8n-workflow';

export const skipDeleteRecord: INodeProperties = {
	displayName: 'Keep Recording',
	name: 'skipDeleteRecord',
	type: 'boolean',
	default: false,
	description: 'Whether the audio recording is kept; off, the recording is deleted together with the personal data',
};
