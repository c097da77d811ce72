/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/nodes', '<rootDir>/credentials', '<rootDir>/test'].filter((p) =>
		require('fs').existsSync(p.replace('<rootDir>', __dirname)),
	),
	testMatch: ['**/?(*.)+(spec|test).ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }],
	},
	moduleFileExtensions: ['ts', 'js', 'json'],
};
