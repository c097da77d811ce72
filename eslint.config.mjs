// Lint scope: what the published package is made of (nodes/, credentials/, package.json),
// with n8n's Cloud-eligible community rules and the n8n-nodes-base rule sets.
import tsParser from '@typescript-eslint/parser';
import jsoncParser from 'jsonc-eslint-parser';
import communityNodes from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';

const { recommended } = communityNodes.configs;

export default [
	{ ignores: ['dist/**', 'node_modules/**', 'test/**', 'scripts/**', '.cache/**'] },
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		languageOptions: {
			parser: tsParser,
			parserOptions: { project: './tsconfig.json', sourceType: 'module' },
		},
		plugins: recommended.plugins,
		rules: { ...recommended.rules, 'no-console': 'error' },
	},
	{
		files: ['package.json'],
		languageOptions: { parser: jsoncParser },
		plugins: { ...recommended.plugins, 'n8n-nodes-base': n8nNodesBase },
		rules: { ...recommended.rules, ...n8nNodesBase.configs.community.rules },
	},
	{
		files: ['credentials/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		// The same two exceptions as n8n's own community config (@n8n/node-cli): main-repo-only rules.
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
			'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
];
