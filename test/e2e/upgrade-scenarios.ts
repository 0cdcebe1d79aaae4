/**
 * Upgrading from the last release: version 0.1.0 (the git tag v0.1.0, built and packed here once and
 * cached) installed in real n8n, its workflows saved and published there, then this package installed
 * in its place in the same n8n user folder, as n8n's community-package update (or `npm install` in
 * ~/.n8n/nodes) does, and n8n started again. What users had keeps working without touching it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { DEMO_CREDENTIAL_ID, DEMO_CREDENTIAL_NAME } from '../dev/demo';
import { launchBrowser, signIn, untilLoaded } from './lib/browser';
import type { ScenarioContext } from './lib/context';
import type { EmulatorProcess, StoredMessage } from '../real-n8n/emulator-process';
import { PACKAGE_NAME, ROOT, installPackage } from '../real-n8n/install';
import type { Json } from '../real-n8n/n8n';
import { hasEnded, N8n } from '../real-n8n/n8n';
import { run, waitFor } from '../real-n8n/processes';
import type { Scenario } from './lib/runner';

/**
 * The release users upgrade from: its tag, and its commit (the one test/fixtures/descriptions-0.1.0.json
 * was written from), for a clone that did not fetch tags.
 */
const PREVIOUS = { version: '0.1.0', tag: 'v0.1.0', commit: '3a06cf5eb0402ad52c2bca3e85fb6cccee2b01a4' } as const;
const SECRET_HEADER = 'X-Service-Bot-Api-Secret-Token';
const MANUAL_TRIGGER = 'When clicking ‘Execute workflow’';
const KEYBOARD_TEXT = 'Hello from n8n! Which do you prefer?';

function git(args: string[]): string {
	return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
}

/** The commit of the previous release: its tag's, else its known commit; says what to do when the clone has neither (a shallow checkout). */
function previousCommit(): string {
	for (const name of [PREVIOUS.tag, PREVIOUS.commit]) {
		try {
			return git(['rev-parse', '--verify', '--quiet', `${name}^{commit}`]);
		} catch {
			// The next name, or the advice below.
		}
	}
	throw new Error(`the release ${PREVIOUS.tag} (${PREVIOUS.commit}) is missing from this clone: git fetch --tags (in GitHub Actions: actions/checkout with fetch-depth: 0)`);
}

/**
 * The previous release packed (`npm pack`), built from its tag the first time and then kept in
 * `<cache>/n8n-nodes-service-bot/package-<version>-<commit>/`: `git archive` of the tag, this
 * repository's node_modules linked in (0.1.0's dev dependencies are a subset of today's, same
 * versions), `tsc` and the icon copy of its own `npm run build`.
 */
async function previousTarball(ctx: ScenarioContext): Promise<string> {
	const commit = previousCommit();
	const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
	const cache = join(base, 'n8n-nodes-service-bot', `package-${PREVIOUS.version}-${commit.slice(0, 12)}`);
	const tarball = join(cache, `${PACKAGE_NAME}-${PREVIOUS.version}.tgz`);
	if (existsSync(tarball)) {
		ctx.log(`${PREVIOUS.version} (${PREVIOUS.tag}, ${commit.slice(0, 7)}) packed before: ${tarball}`);
		return tarball;
	}
	const work = mkdtempSync(join(tmpdir(), `service-bot-${PREVIOUS.version}-`));
	try {
		const source = join(work, 'source');
		mkdirSync(source);
		execFileSync('bash', ['-o', 'pipefail', '-c', `git archive ${commit} | tar -x -C '${source}'`], { cwd: ROOT });
		symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'));
		const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as { version: string; scripts: { build: string } };
		assert.equal(manifest.version, PREVIOUS.version, `${PREVIOUS.tag} is version ${manifest.version}`);
		assert.equal(manifest.scripts.build, 'tsc -p tsconfig.json && gulp build:icons', `${PREVIOUS.tag} builds as this function does`);
		await run(`tsc (${PREVIOUS.version})`, process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: source });
		await run(`gulp (${PREVIOUS.version})`, process.execPath, [join(ROOT, 'node_modules', 'gulp', 'bin', 'gulp.js'), 'build:icons'], { cwd: source });
		const { stdout } = await run(`npm pack (${PREVIOUS.version})`, 'npm', ['pack', '--quiet', '--ignore-scripts', '--pack-destination', work], { cwd: source });
		const packed = join(work, stdout.trim().split('\n').pop() ?? '');
		mkdirSync(cache, { recursive: true });
		renameSync(packed, tarball);
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
	ctx.log(`built and packed ${PREVIOUS.version} from ${PREVIOUS.tag} (${commit.slice(0, 7)}) → ${tarball}`);
	return tarball;
}

/** An example workflow as the previous release has it (test/dev/workflows/ at its commit: a clone may lack the tag), for the credential `credentialId`. */
function previousExample(file: string, credentialId: string, chatId: string): Json {
	const text = git(['show', `${previousCommit()}:test/dev/workflows/${file}`]);
	const workflow = JSON.parse(text.split('__DEMO_CHAT_ID__').join(chatId).split(DEMO_CREDENTIAL_ID).join(credentialId)) as Json;
	delete workflow.id;
	delete workflow.active;
	return workflow;
}

function installedVersion(userFolder: string): string {
	return (JSON.parse(readFileSync(join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME, 'package.json'), 'utf8')) as { version: string }).version;
}

function botMessages(history: StoredMessage[]): StoredMessage[] {
	return history.filter((message) => message.from?.is_bot === true);
}

async function echoOf(emulator: EmulatorProcess, text: string): Promise<StoredMessage> {
	return await waitFor(`the echo of "${text}"`, async () => botMessages(await emulator.history()).find((message) => message.text === `You said: ${text}`));
}

/** The package's node types n8n lists, with the versions it offers. */
async function packageTypes(n8n: N8n): Promise<Record<string, number[]>> {
	const nodes = (await n8n.request('GET', '/types/nodes.json')) as Json[];
	const types: Record<string, number[]> = {};
	for (const node of nodes.filter((type: Json) => String(type.name).startsWith(`${PACKAGE_NAME}.`))) {
		types[node.name] = [...new Set([...(types[node.name] ?? []), ...[node.version].flat()])].sort((a, b) => a - b);
	}
	return types;
}

/** Runs a saved workflow from its manual trigger, as the editor's "Execute workflow" does; answers the finished execution. */
async function executeFromEditor(n8n: N8n, workflowId: string): Promise<Json> {
	const started = await n8n.runManually(workflowId, { triggerToStartFrom: { name: MANUAL_TRIGGER } });
	assert.ok(started.executionId, `n8n started a manual execution: ${JSON.stringify(started)}`);
	return await waitFor('the manual execution to finish', async () => {
		const execution = await n8n.request('GET', `/rest/executions/${started.executionId}`);
		return hasEnded(execution) ? execution : undefined;
	});
}

/** The `sendMessage` request the keyboard example made, as the service received it (the newest). */
async function keyboardRequest(emulator: EmulatorProcess): Promise<Record<string, unknown>> {
	const calls = (await emulator.calls('sendMessage')).filter((call) => call.body.text === KEYBOARD_TEXT);
	assert.ok(calls.length > 0, 'the keyboard example sent its message');
	return calls[calls.length - 1].body;
}

/** What n8n keeps of a saved workflow that an upgrade must not change. */
function saved(workflow: Json): Json {
	return { versionId: workflow.versionId, active: workflow.active, nodes: workflow.nodes, connections: workflow.connections };
}

const upgradeFromPrevious: Scenario = {
	name: `upgrade from ${PREVIOUS.version}: its published echo bot answers after the new version is installed without being published again (its webhook secret still accepted), its saved Send Message runs with its saved parameters, and the editor shows its nodes without issues`,
	async run(ctx) {
		const previous = await previousTarball(ctx);
		const emulator = await ctx.emulator();
		const { privateChatId, userId } = emulator.demo;

		// n8n with the previous release, in a user folder that stays for the upgrade.
		const userFolder = join(ctx.dir, 'n8n-1', 'user');
		await installPackage(previous, userFolder, ctx.install);
		const n8n = new N8n({ install: ctx.install, userFolder, logDir: join(ctx.dir, 'n8n-1', 'logs'), ...(await N8n.ports()) });
		ctx.defer(() => n8n.stop());
		await n8n.start();
		await n8n.setupOwner();
		assert.equal(installedVersion(userFolder), PREVIOUS.version);
		const typesBefore = await packageTypes(n8n);
		ctx.log(`n8n ${ctx.install.n8nVersion} with ${PACKAGE_NAME} ${PREVIOUS.version}: ${JSON.stringify(typesBefore)}`);

		const credential = await n8n.request('POST', '/rest/credentials', {
			name: DEMO_CREDENTIAL_NAME,
			type: 'serviceBotApi',
			data: { accessToken: emulator.demo.token, baseUrl: emulator.baseUrl },
		});
		const credentialId = String(credential.id);
		const echo = await n8n.createWorkflow(previousExample('demo-bot.json', credentialId, privateChatId));
		const keyboard = await n8n.createWorkflow(previousExample('send-keyboard.json', credentialId, privateChatId));
		// The editor's red marker, shown: the keyboard example with its required Text left empty.
		const broken = previousExample('send-keyboard.json', credentialId, privateChatId);
		broken.name = 'Send Message with no text';
		(broken.nodes as Json[]).find((node: Json) => node.name === 'Send Message').parameters.text = '';
		const withIssue = await n8n.createWorkflow(broken);
		await n8n.activate(String(echo.id));
		const hook = await waitFor('0.1.0 to set the webhook', async () => (await emulator.webhook()) ?? undefined, { limitMs: 60_000 });
		const secret = String(hook.secretToken);
		ctx.log(`${PREVIOUS.version}'s examples saved (${PREVIOUS.tag}:test/dev/workflows/), the echo bot published: webhook ${hook.url}`);

		await emulator.userSends('before the upgrade');
		const before = await echoOf(emulator, 'before the upgrade');
		const sentBefore = await executeFromEditor(n8n, String(keyboard.id));
		assert.equal(sentBefore.status, 'success');
		const requestBefore = await keyboardRequest(emulator);
		const savedBefore = {
			echo: saved(await n8n.request('GET', `/rest/workflows/${echo.id}`)),
			keyboard: saved(await n8n.request('GET', `/rest/workflows/${keyboard.id}`)),
		};
		ctx.log(`${PREVIOUS.version}: the echo bot answered (message ${before.message_id}) and the keyboard example sent its message`);
		await n8n.stop();

		// The upgrade: this package in place of 0.1.0, n8n started again; nothing published or saved again.
		const setWebhooksBefore = (await emulator.calls('setWebhook')).length;
		await installPackage(ctx.tarball, userFolder, ctx.install);
		const current = installedVersion(userFolder);
		assert.notEqual(current, PREVIOUS.version);
		await n8n.start();
		assert.doesNotMatch(n8n.serverOutput(), new RegExp(`Failed to load package "${PACKAGE_NAME}"`), 'n8n failed to load the package');
		await n8n.login();
		const typesAfter = await packageTypes(n8n);
		assert.ok(typesAfter[`${PACKAGE_NAME}.serviceBotPollingTrigger`], `the new version's polling trigger is listed: ${JSON.stringify(typesAfter)}`);
		for (const [type, versions] of Object.entries(typesBefore)) {
			for (const version of versions) assert.ok(typesAfter[type]?.includes(version), `${type} still offers version ${version}: ${JSON.stringify(typesAfter)}`);
		}
		ctx.log(`${current} installed in its place, n8n started again: ${JSON.stringify(typesAfter)}`);

		// The published echo bot answers: a message, a click on the echo 0.1.0 sent, a push with 0.1.0's secret.
		await emulator.userSends('after the upgrade');
		await echoOf(emulator, 'after the upgrade');
		await emulator.userClicks(before.message_id, 'nice');
		const edited = await waitFor('the echo sent before the upgrade, edited after its click', async () =>
			(await emulator.history()).find((message) => message.message_id === before.message_id && message.edit_date !== undefined),
		);
		assert.equal(edited.text, 'You said: before the upgrade\nYou chose: nice');
		assert.deepEqual((await emulator.callbackAnswers()).map((answer) => answer.text), ['You chose nice']);
		const setWebhooksAfter = (await emulator.calls('setWebhook')).length - setWebhooksBefore;
		const hookAfter = await emulator.webhook();
		ctx.log(`the echo bot answered a message and a click on ${PREVIOUS.version}'s echo; setWebhook calls since the upgrade: ${setWebhooksAfter}, secret ${hookAfter?.secretToken === secret ? 'unchanged' : 'renewed'}`);

		const push = async (updateId: number, text: string, headers: Record<string, string>): Promise<number> => {
			const response = await fetch(hook.url, {
				method: 'POST',
				headers: { 'content-type': 'application/json', ...headers },
				body: JSON.stringify({
					update_id: updateId,
					message: { message_id: updateId, date: Math.floor(Date.now() / 1000), chat: { id: privateChatId, type: 'private' }, from: { id: userId, is_bot: false, first_name: 'Demo' }, text },
				}),
			});
			return response.status;
		};
		assert.equal(await push(900_001, 'with a wrong secret', { [SECRET_HEADER]: 'wrong-secret-0123456789abcdef0123' }), 403, 'a wrong secret is refused');
		assert.equal(await push(900_002, `with ${PREVIOUS.version}'s secret`, { [SECRET_HEADER]: secret }), 200, `${PREVIOUS.version}'s secret is accepted`);
		await echoOf(emulator, `with ${PREVIOUS.version}'s secret`);
		assert.ok(!botMessages(await emulator.history()).some((message) => message.text === 'You said: with a wrong secret'));
		ctx.log(`a push with ${PREVIOUS.version}'s webhook secret ran the echo bot; one with a wrong secret got 403`);

		// The saved Send Message: the same request as before the upgrade; the saved workflows unchanged.
		const sentAfter = await executeFromEditor(n8n, String(keyboard.id));
		assert.equal(sentAfter.status, 'success');
		assert.deepEqual(await keyboardRequest(emulator), requestBefore, 'the saved Send Message sends what it sent before the upgrade');
		assert.deepEqual(
			{
				echo: saved(await n8n.request('GET', `/rest/workflows/${echo.id}`)),
				keyboard: saved(await n8n.request('GET', `/rest/workflows/${keyboard.id}`)),
			},
			savedBefore,
			'the saved workflows are unchanged',
		);
		ctx.log('the saved keyboard example sent the same request as before; both workflows unchanged (nodes, version id, published)');

		// The editor: no issue markers on the saved nodes; the one with an empty Text has its marker.
		const browser = await launchBrowser(ctx.install);
		ctx.defer(() => browser.close());
		const { page } = browser;
		await signIn(page, n8n.baseUrl);
		/** Opens a workflow; answers the issue markers on its canvas once its nodes are there. */
		const open = async (workflowId: string, nodes: number): Promise<number> => {
			await page.goto(`${n8n.baseUrl}/workflow/${workflowId}`, { waitUntil: 'domcontentloaded', timeout: 120_000 });
			await waitFor(`the ${nodes} nodes on the canvas`, async () => (await page.locator('[data-test-id="canvas-node"]').count()) === nodes, { limitMs: 60_000 });
			await untilLoaded(page);
			return await page.locator('[data-test-id="node-issues"]').count();
		};
		// The editor computes the issues as it loads a workflow: the marker is there with the nodes.
		assert.equal(await open(String(withIssue.id), 2), 1, 'the Send Message with an empty Text shows its issue marker');
		await page.screenshot({ path: join(ctx.screenshotDir, 'upgrade-node-with-issue.png') });
		assert.equal(await open(String(echo.id), 5), 0, 'the echo bot shows no issue markers');
		await page.screenshot({ path: join(ctx.screenshotDir, 'upgrade-echo-bot.png') });
		assert.equal(await open(String(keyboard.id), 2), 0, 'the keyboard example shows no issue markers');
		await page.screenshot({ path: join(ctx.screenshotDir, 'upgrade-send-keyboard.png') });
		ctx.log(`the editor: the echo bot and the keyboard example show no issue markers (the node with an empty Text shows its marker) → ${resolve(ctx.screenshotDir, 'upgrade-*.png')}`);
	},
};

export const UPGRADE_SCENARIOS: Scenario[] = [upgradeFromPrevious];
