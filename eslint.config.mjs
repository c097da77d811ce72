// Lint scope, two rule sets:
// - what the published package is made of (nodes/, credentials/, package.json): n8n's Cloud-eligible
//   community rules and the n8n-nodes-base rule sets;
// - the tooling around it (scripts/, simulator/, test/, the config files): eslint's recommended rules
//   for Node (CommonJS) scripts and jest tests. The community-node rules do not apply there: those
//   files are never published and may use the file system, processes, timers and the environment.
import js from '@eslint/js';
import globals from 'globals';
import tsParser from '@typescript-eslint/parser';
import tseslint from 'typescript-eslint';
import jsoncParser from 'jsonc-eslint-parser';
import communityNodes from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';

const { recommended } = communityNodes.configs;

const toolingJs = ['scripts/**/*.js', 'simulator/**/*.js', 'test/**/*.js', '*.js'];
const toolingTs = ['test/**/*.ts', 'simulator/**/*.ts'];
const toolingRules = {
	'no-unused-vars': ['error', { caughtErrors: 'none', ignoreRestSiblings: true }],
};

export default [
	{ ignores: ['dist/**', 'node_modules/**', '.cache/**'] },
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

	// Tooling: Node scripts (CommonJS, plain JavaScript) and the jest suites (TypeScript).
	{
		files: toolingJs,
		...js.configs.recommended,
		languageOptions: { ecmaVersion: 2022, sourceType: 'commonjs', globals: globals.node },
		rules: { ...js.configs.recommended.rules, ...toolingRules },
	},
	{
		files: ['*.mjs'],
		...js.configs.recommended,
		languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: globals.node },
	},
	...[js.configs.recommended, ...tseslint.configs.recommended].map((config) => ({ ...config, files: toolingTs })),
	{
		files: toolingTs,
		languageOptions: { sourceType: 'module', globals: { ...globals.node, ...globals.jest } },
		rules: {
			...toolingRules,
			'no-unused-vars': 'off',
			'@typescript-eslint/no-unused-vars': toolingRules['no-unused-vars'],
			// Tests read the API's and n8n's loosely typed answers (JSON bodies, run data) as `any` on purpose.
			'@typescript-eslint/no-explicit-any': 'off',
		},
	},
	{ files: [...toolingJs, ...toolingTs], linterOptions: { reportUnusedDisableDirectives: 'error' } },
];
