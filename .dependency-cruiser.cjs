/**
 * The import plan of nodes/ and credentials/, checked by `npm run lint:imports` (dependency-cruiser; part
 * of `npm test`). CONTRIBUTING's Architecture section describes the same folders in words.
 *
 * Every file belongs to one room below. A room stands in a wing (one node's own code, the credential's,
 * or `shared`, which all of them stand on) at a floor of that wing (0 = its ground). A file imports from
 * its own room, from a room on a lower floor of its own wing, and from any room of `shared`; never from a
 * room on its floor or above (so nothing imports a node file), never from another node's wing; `shared`
 * imports nothing outside `shared`. Import circles are refused outright, within a room too. The floors
 * are what the code does today: raise a room's floor only with a reason.
 *
 * Outside nodes/ and credentials/ the built nodes may import only what n8n ships to every community
 * package: `n8n-workflow`, `zod/v4` and Node's `crypto` (README "Compatibility"; e2e scenario 1).
 */

/** @type {{ room: string, path: string, wing: string, floor: number }[]} */
const ROOMS = [
	{ room: 'the Service Bot node', path: '^nodes/ServiceBot/ServiceBot\\.node\\.ts$', wing: 'ServiceBot', floor: 5 },
	{ room: 'actions', path: '^nodes/ServiceBot/actions/[^/]+\\.ts$', wing: 'ServiceBot', floor: 4 },
	{ room: 'Send and Wait', path: '^nodes/ServiceBot/actions/sendAndWait/', wing: 'ServiceBot', floor: 3 },
	{ room: 'resources', path: '^nodes/ServiceBot/resources/', wing: 'ServiceBot', floor: 2 },
	// keyboard/ is part of the parameter kinds: kinds.ts registers keyboard/read.ts, which reads with text.ts.
	{ room: 'parameters', path: '^nodes/ServiceBot/parameters/', wing: 'ServiceBot', floor: 1 },
	{ room: 'the webhook trigger node', path: '^nodes/ServiceBotTrigger/ServiceBotTrigger\\.node\\.ts$', wing: 'ServiceBotTrigger', floor: 1 },
	{ room: 'the webhook', path: '^nodes/ServiceBotTrigger/webhook/', wing: 'ServiceBotTrigger', floor: 0 },
	{ room: 'the polling trigger node', path: '^nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger\\.node\\.ts$', wing: 'ServiceBotPollingTrigger', floor: 1 },
	{ room: 'polling', path: '^nodes/ServiceBotPollingTrigger/(?![^/]+\\.node\\.ts$)[^/]+\\.ts$', wing: 'ServiceBotPollingTrigger', floor: 0 },
	{ room: 'the credential', path: '^credentials/', wing: 'credentials', floor: 0 },
	// The trigger's delivery of answers (trigger/answerDelivery.ts) speaks the Send and Wait protocol.
	{ room: 'shared/trigger', path: '^nodes/shared/trigger/', wing: 'shared', floor: 2 },
	{ room: 'shared/sendAndWait', path: '^nodes/shared/sendAndWait/', wing: 'shared', floor: 1 },
	{ room: 'shared', path: '^nodes/shared/[^/]+\\.ts$', wing: 'shared', floor: 1 },
	// The Markdown converter stands on nothing: the parse mode kind and the trigger's streamed answers use it.
	{ room: 'shared/markdown', path: '^nodes/shared/markdown/', wing: 'shared', floor: 0 },
	// The transport stands on nothing else of nodes/: files.ts and Send and Wait's answered question call the service through it.
	{ room: 'shared/transport', path: '^nodes/shared/transport/', wing: 'shared', floor: 0 },
];

/** What the nodes may import from outside nodes/ and credentials/ (resolved paths; core modules by name). */
const EXTERNALS = ['(^|/)node_modules/n8n-workflow/', '(^|/)node_modules/zod/v4/index\\.', '^(node:)?crypto$'];

const LOCAL = '^(nodes|credentials)/';

function below(room) {
	return ROOMS.filter((other) => (other.wing === room.wing && other.floor < room.floor) || (other.wing === 'shared' && room.wing !== 'shared'));
}

const upward = ROOMS.map((room) => ({
	name: `upward-import: ${room.room}`,
	severity: 'error',
	comment:
		`${room.room} (wing ${room.wing}, floor ${room.floor}) imports only its own room and ` +
		(below(room).map((other) => other.room).join(', ') || 'nothing else in nodes/') +
		': a room on its floor or above, or in another node, is a higher folder (.dependency-cruiser.cjs)',
	from: { path: room.path },
	to: { path: LOCAL, pathNot: [room.path, ...below(room).map((other) => other.path)] },
}));

module.exports = {
	forbidden: [
		{
			name: 'no-circular',
			severity: 'error',
			comment: 'an import circle in nodes/ or credentials/: the files of a circle cannot be read or tested one without the other',
			from: { path: LOCAL },
			to: { circular: true },
		},
		...upward,
		{
			name: 'not-in-the-plan',
			severity: 'error',
			comment: 'a file in no room of .dependency-cruiser.cjs: add its folder to ROOMS (and to the map in .github/CONTRIBUTING.md)',
			from: { path: LOCAL, pathNot: ROOMS.map((room) => room.path) },
			to: {},
		},
		{
			name: 'no-test-import',
			severity: 'error',
			comment: 'nodes/ and credentials/ never import test/ (nor dist/): the tests stand on the code, not the reverse',
			from: { path: LOCAL },
			to: { path: '^(test|dist)/' },
		},
		{
			name: 'only-what-n8n-ships',
			severity: 'error',
			comment:
				'nodes/ and credentials/ import only n8n-workflow, zod/v4, crypto and their own files: n8n installs a community package without its dependencies',
			from: { path: LOCAL },
			to: { couldNotResolve: false, pathNot: [LOCAL, '^(test|dist)/', ...EXTERNALS] },
		},
		{
			name: 'not-to-unresolvable',
			severity: 'error',
			comment: 'an import that resolves to no file',
			from: { path: LOCAL },
			to: { couldNotResolve: true },
		},
	],
	options: {
		doNotFollow: { path: ['(^|/)node_modules/', '^(test|dist)/'] },
		tsPreCompilationDeps: true,
		tsConfig: { fileName: 'tsconfig.json' },
	},
};
