/**
 * Postgres and Redis for n8n's queue mode, from Debian's packages, each on a free 127.0.0.1 port with
 * a throw-away data folder, stopped by process id (ScenarioContext.defer). No system services.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Proc } from '../../real-n8n/processes';
import { freePort, run, spawnProc, stopProc, waitFor } from '../../real-n8n/processes';

/** Debian puts one folder per major version under /usr/lib/postgresql; the newest is used. */
function postgresBinDir(): string {
	const base = '/usr/lib/postgresql';
	const versions = existsSync(base) ? readdirSync(base).filter((entry) => /^\d+$/.test(entry)) : [];
	if (versions.length === 0) throw new Error(`no Postgres under ${base}: apt-get install postgresql`);
	const newest = versions.map(Number).sort((a, b) => b - a)[0];
	return join(base, String(newest), 'bin');
}

const throwAwayDirs = new Set<string>();
process.on('exit', () => {
	for (const dir of throwAwayDirs) rmSync(dir, { recursive: true, force: true });
});

/** A new temporary folder, removed by `removeDir` or, at the latest, when this process exits (also after Ctrl-C). */
function throwAwayDir(prefix: string): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	throwAwayDirs.add(dir);
	return dir;
}

function removeDir(dir: string): void {
	rmSync(dir, { recursive: true, force: true });
	throwAwayDirs.delete(dir);
}

function isRoot(): boolean {
	return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * Postgres refuses to run as root: as root, its commands run as the `postgres` user (created by
 * Debian's package) through setpriv, which execs, so the process id we hold is Postgres itself.
 */
function asPostgresUser(command: string, args: string[]): [string, string[]] {
	if (!isRoot()) return [command, args];
	return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args]];
}

export class Postgres {
	readonly user = 'n8n';
	private databases = 0;

	private constructor(
		private readonly proc: Proc,
		private readonly bin: string,
		private readonly dataDir: string,
		readonly port: number,
	) {}

	/** initdb into a new temporary folder, then `postgres` in the foreground on a free port. */
	static async start(logDir: string): Promise<Postgres> {
		const bin = postgresBinDir();
		const dataDir = throwAwayDir('service-bot-pg-');
		if (isRoot()) execFileSync('chown', ['postgres:postgres', dataDir]);
		const [initdb, initArgs] = asPostgresUser(join(bin, 'initdb'), ['-D', dataDir, '-U', 'n8n', '--auth=trust', '-E', 'UTF8', '--no-sync']);
		await run('initdb', initdb, initArgs, { logFile: join(logDir, 'postgres-initdb.log') });
		const port = await freePort();
		// Durability is of no use for a throw-away database; turning it off makes the tests lighter.
		const [postgres, args] = asPostgresUser(join(bin, 'postgres'), [
			'-D', dataDir,
			'-p', String(port),
			'-c', 'listen_addresses=127.0.0.1',
			'-c', `unix_socket_directories=${dataDir}`,
			'-c', 'fsync=off',
			'-c', 'synchronous_commit=off',
			'-c', 'full_page_writes=off',
			'-c', 'max_connections=200',
		]);
		const proc = spawnProc('postgres', postgres, args, { logFile: join(logDir, 'postgres.log') });
		const server = new Postgres(proc, bin, dataDir, port);
		try {
			await waitFor('Postgres to accept connections', async () => {
				if (proc.hasExited()) throw new Error(`postgres exited:\n${proc.tail()}`);
				const { code } = await run('pg_isready', join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)], { allowFailure: true });
				return code === 0;
			});
		} catch (error) {
			await server.stop();
			throw error;
		}
		return server;
	}

	/** Process id of the postmaster (its process group holds the backends). */
	get pid(): number {
		return this.proc.pid;
	}

	/** A new, empty database; returns its name. */
	async createDatabase(prefix = 'n8n'): Promise<string> {
		this.databases += 1;
		const name = `${prefix}_${this.databases}`;
		await this.psql('postgres', `CREATE DATABASE ${name}`);
		return name;
	}

	/** Runs SQL with psql; returns the rows, each as its fields (psql's unaligned output). */
	async query(database: string, sql: string): Promise<string[][]> {
		const out = await this.psql(database, sql);
		return out
			.split('\n')
			.filter((line) => line !== '')
			.map((line) => line.split('\t'));
	}

	private async psql(database: string, sql: string): Promise<string> {
		const { stdout } = await run('psql', join(this.bin, 'psql'), [
			'-h', '127.0.0.1', '-p', String(this.port), '-U', this.user, '-d', database,
			'-v', 'ON_ERROR_STOP=1', '-X', '-A', '-t', '-F', '\t', '-c', sql,
		]);
		return stdout;
	}

	/** The environment that points n8n at `database`. */
	env(database: string): NodeJS.ProcessEnv {
		return {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(this.port),
			DB_POSTGRESDB_DATABASE: database,
			DB_POSTGRESDB_USER: this.user,
			DB_POSTGRESDB_PASSWORD: '',
		};
	}

	/** SIGINT is Postgres' "fast" shutdown (SIGTERM would wait for every client to leave). */
	async stop(): Promise<void> {
		try {
			process.kill(-this.proc.pid, 'SIGINT');
		} catch {
			// already gone
		}
		await stopProc(this.proc);
		removeDir(this.dataDir);
	}
}

export class Redis {
	private constructor(
		private readonly proc: Proc,
		private readonly dataDir: string,
		readonly port: number,
	) {}

	static async start(logDir: string): Promise<Redis> {
		const dataDir = throwAwayDir('service-bot-redis-');
		const port = await freePort();
		const proc = spawnProc(
			'redis',
			'redis-server',
			['--port', String(port), '--bind', '127.0.0.1', '--dir', dataDir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
			{ logFile: join(logDir, 'redis.log') },
		);
		const server = new Redis(proc, dataDir, port);
		try {
			await waitFor('Redis to accept connections', () => {
				if (proc.hasExited()) throw new Error(`redis-server exited:\n${proc.tail()}`);
				return proc.output().includes('Ready to accept connections');
			});
		} catch (error) {
			await server.stop();
			throw error;
		}
		return server;
	}

	get pid(): number {
		return this.proc.pid;
	}

	env(): NodeJS.ProcessEnv {
		return { QUEUE_BULL_REDIS_HOST: '127.0.0.1', QUEUE_BULL_REDIS_PORT: String(this.port) };
	}

	async stop(): Promise<void> {
		await stopProc(this.proc);
		removeDir(this.dataDir);
	}
}
