/**
 * What a scenario gets: a work folder, fresh n8n instances (each in its own user folder with the
 * package installed from the tarball), an emulator process, and clean-up that always runs.
 */
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { DEMO_CREDENTIAL_ID, WORKFLOWS, demoCredential, demoWorkflow } from '../../dev/demo';
import type { DemoIds } from '../../dev/demo';
import { EmulatorProcess } from '../../real-n8n/emulator-process';
import type { EmulatorStartOptions } from '../../real-n8n/emulator-process';
import type { N8nInstall } from '../../real-n8n/install';
import { installFolderPackage, installPackage } from '../../real-n8n/install';
import { DEMO_OWNER, N8n } from '../../real-n8n/n8n';
import type { N8nOptions } from '../../real-n8n/n8n';

export class ScenarioContext {
	private readonly cleanups: Array<() => Promise<void>> = [];
	private instances = 0;
	/** Folders of further community packages every new n8n of this scenario gets (installFolderPackage). */
	readonly extraPackages: string[] = [];
	private readonly started = Date.now();

	constructor(
		readonly install: N8nInstall,
		readonly tarball: string,
		/** This scenario's folder (user folders, logs). */
		readonly dir: string,
		readonly screenshotDir: string,
		/** Where its progress lines go (the runner's: at once, or kept until the scenario ends when scenarios run side by side). */
		readonly write: (text: string) => void = (text) => process.stdout.write(text),
		/**
		 * A prepared user folder (prepareUserFolder) that each new n8n starts from, instead of an empty one
		 * where n8n first migrates its database (8.4 CPU-seconds from start to ready and stopped, against
		 * 11.1 in an empty folder). Only for n8n on SQLite with the folder's own encryption key, not for
		 * queue mode.
		 */
		readonly prepared?: string,
	) {}

	/** A progress line, with the seconds since the scenario started. */
	log(message: string): void {
		const seconds = ((Date.now() - this.started) / 1000).toFixed(1).padStart(5);
		this.write(`    ${seconds}s  ${message}\n`);
	}

	/** Runs `cleanup` when the scenario ends, passed or failed (newest first). */
	defer(cleanup: () => Promise<void>): void {
		this.cleanups.push(cleanup);
	}

	async cleanUp(): Promise<void> {
		for (const cleanup of this.cleanups.reverse()) {
			try {
				await cleanup();
			} catch (error) {
				this.write(`    clean-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
			}
		}
		this.cleanups.length = 0;
	}

	/**
	 * A new n8n in its own user folder, with the package installed the way n8n installs it: a copy of the
	 * prepared folder when the runner gave one, else (and with `fresh`) an empty folder n8n has never
	 * started in. `options` choose the command (a queue-mode worker or webhook process), its name in logs
	 * and extra environment.
	 */
	async n8n({ fresh = false, ...options }: Pick<N8nOptions, 'command' | 'args' | 'name' | 'env'> & { fresh?: boolean } = {}): Promise<N8n> {
		this.instances += 1;
		const name = `n8n-${this.instances}${options.name ? `-${options.name}` : ''}`;
		const userFolder = join(this.dir, name, 'user');
		const prepared = fresh ? undefined : this.prepared;
		if (prepared) cpSync(prepared, userFolder, { recursive: true });
		else await installPackage(this.tarball, userFolder, this.install);
		for (const folder of this.extraPackages) installFolderPackage(folder, userFolder);
		const n8n = new N8n({ install: this.install, userFolder, logDir: join(this.dir, name, 'logs'), ...(await N8n.ports()), ownerReady: prepared !== undefined, ...options });
		this.defer(() => n8n.stop());
		return n8n;
	}

	async emulator(options: Pick<EmulatorStartOptions, 'timeoutMs' | 'telegramSecretHeader'> = {}): Promise<EmulatorProcess> {
		const emulator = await EmulatorProcess.start({ logFile: join(this.dir, 'emulator.log'), retryBaseMs: 100, ...options });
		this.defer(() => emulator.stop());
		this.log(`emulator at ${emulator.baseUrl}`);
		return emulator;
	}

	/** Imports the demo credential (pointing at `emulator`) and the example workflows. */
	async importDemo(n8n: N8n, emulator: EmulatorProcess): Promise<DemoIds> {
		const demo: DemoIds = { baseUrl: emulator.baseUrl, token: emulator.demo.token, privateChatId: emulator.demo.privateChatId };
		await n8n.importCredentials([demoCredential(demo)]);
		this.log(`imported credential ${DEMO_CREDENTIAL_ID}`);
		await n8n.importWorkflows([demoWorkflow('sendKeyboard', demo), demoWorkflow('demoBot', demo)]);
		this.log('imported the example workflows');
		return demo;
	}

	/**
	 * The same demo content created through the REST API of a running n8n, as the editor saves it
	 * (faster than two CLI commands, each of which boots n8n). n8n assigns new ids; returns them.
	 */
	async createDemo(n8n: N8n, emulator: EmulatorProcess): Promise<{ credentialId: string; workflowIds: Record<keyof typeof WORKFLOWS, string> }> {
		const demo: DemoIds = { baseUrl: emulator.baseUrl, token: emulator.demo.token, privateChatId: emulator.demo.privateChatId };
		const credentialId = await this.createCredential(n8n, emulator);
		const workflowIds = {} as Record<keyof typeof WORKFLOWS, string>;
		for (const key of Object.keys(WORKFLOWS) as Array<keyof typeof WORKFLOWS>) {
			const text = JSON.stringify(demoWorkflow(key, demo)).split(DEMO_CREDENTIAL_ID).join(credentialId);
			const workflow = JSON.parse(text) as Record<string, unknown>;
			delete workflow.id;
			delete workflow.active;
			const created = await n8n.createWorkflow(workflow);
			workflowIds[key] = String(created.id);
		}
		this.log(`created the credential and the example workflows through the REST API`);
		return { credentialId, workflowIds };
	}

	/** The demo credential (the emulator's demo bot) created through the REST API; its id. */
	async createCredential(n8n: N8n, emulator: EmulatorProcess): Promise<string> {
		const credential = demoCredential({ baseUrl: emulator.baseUrl, token: emulator.demo.token, privateChatId: emulator.demo.privateChatId });
		delete credential.id;
		return String((await n8n.request('POST', '/rest/credentials', credential)).id);
	}
}

/**
 * A user folder for scenarios to copy: the package installed as n8n installs it, n8n started once in it
 * (its database migrated, its settings and encryption key written) and the demo owner set up. Stopped
 * before it is copied, so the copies start from a closed database. Returns its path.
 */
export async function prepareUserFolder(install: N8nInstall, tarball: string, dir: string): Promise<string> {
	const userFolder = join(dir, 'user');
	if (existsSync(userFolder)) throw new Error(`${userFolder} exists: prepare into an empty folder`);
	await installPackage(tarball, userFolder, install);
	const n8n = new N8n({ install, userFolder, logDir: join(dir, 'logs'), ...(await N8n.ports()) });
	try {
		await n8n.start();
		await n8n.setupOwner(DEMO_OWNER);
	} finally {
		await n8n.stop();
	}
	// n8n's event log of this first start is no scenario's history, and the editor's files n8n wrote
	// into .cache (48 MB) it writes again at every start: a copy of them costs and saves nothing.
	const data = join(userFolder, '.n8n');
	for (const file of readdirSync(data)) if (file.startsWith('n8nEventLog')) rmSync(join(data, file));
	rmSync(join(userFolder, '.cache'), { recursive: true, force: true });
	return userFolder;
}
