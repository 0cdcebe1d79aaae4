/**
 * `npm run dev` (after test/dev/dev.sh has installed, built and provisioned): the emulator with its
 * demo data, and a real n8n 2.41.1 with this package installed from its `npm pack` tarball, the demo
 * credential, the example workflows (the echo bot published), and the demo owner. Prints where
 * everything is and how to talk to the bot, then shows the demo chat live until Ctrl-C, which stops
 * everything it started.
 *
 * Every run starts from a fresh n8n user folder (<cache>/dev/n8n-user, wiped at start): the emulator
 * keeps its state in memory, so an n8n that remembers a published workflow would believe in a
 * webhook the new emulator has never heard of.
 *
 * Environment: SERVICE_BOT_DEV_N8N_PORT (default 5678), SERVICE_BOT_DEV_EMULATOR_PORT (default 8081),
 * SERVICE_BOT_DEV_MODEL_PORT (default 8082, the stand-in chat model), SERVICE_BOT_DEV_DIR (default
 * <cache>/dev: the n8n user folder, the logs and the packed tarball; lets a second `npm run dev`, e.g.
 * CI's on a shared machine, keep its state apart), SERVICE_BOT_DEV_MODEL_PACE or the flag
 * `--model-pace=<tokens>@<tokens per second>` (e.g. 800@40: every answer of the stand-in model 800
 * tokens long, sent at 40 tokens a second, 20 s; streamed as it is written when the model node streams).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import { EmulatorProcess } from '../real-n8n/emulator-process';
import type { StoredMessage } from '../real-n8n/emulator-process';
import { installPackage, n8nInstall, pack } from '../real-n8n/install';
import { DEMO_OWNER, N8n } from '../real-n8n/n8n';
import { freePort, portInUse, sleep, stopAll, stopAllOnExit, waitFor } from '../real-n8n/processes';
import { parsePace, startChatModel, type Pace } from '../real-n8n/chat-model';
import { AI_EXAMPLE, APPROVAL_EXAMPLE, FILES_EXAMPLE, MODEL_CREDENTIAL_NAME, VOICE_EXAMPLE, WORKFLOWS, aiExampleWorkflow, demoCredential, demoWorkflow, exampleWorkflow, modelCredential } from './demo';

const bold = (text: string): string => (process.stdout.isTTY ? `\u001b[1m${text}\u001b[22m` : text);

function say(message: string): void {
	process.stdout.write(`dev: ${message}\n`);
}

function portFromEnv(name: string, fallback: number): number {
	const value = process.env[name];
	if (value === undefined || value === '') return fallback;
	const port = Number(value);
	if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${name} must be a port number, not ${value}`);
	return port;
}

/** The stand-in model's pace, from `--model-pace=…` or SERVICE_BOT_DEV_MODEL_PACE (none: answers at once). */
function paceFromArgs(args: string[]): Pace | undefined {
	let value = process.env.SERVICE_BOT_DEV_MODEL_PACE || undefined;
	for (const [index, arg] of args.entries()) {
		if (arg.startsWith('--model-pace=')) value = arg.slice('--model-pace='.length);
		else if (arg === '--model-pace' && args[index + 1] !== undefined) value = args[index + 1];
		else if (args[index - 1] !== '--model-pace') throw new Error(`unknown argument ${arg}; npm run dev takes --model-pace=<tokens>@<tokens per second>, e.g. --model-pace=800@40`);
	}
	return value === undefined ? undefined : parsePace(value);
}

function keyboardOf(message: StoredMessage): string {
	const rows = message.reply_markup?.inline_keyboard ?? [];
	return rows.map((row) => row.map((button) => `[${button.text}${button.callback_data ? ` → ${button.callback_data}` : ''}]`).join(' ')).join('  ');
}

/** Prints the demo chat's new and edited messages as they appear (polls the emulator every second). */
/** The bot's current chat action in the demo chat, as the emulator's chat page shows it ("Demo Bot is typing…"). */
interface ShownAction {
	botId: string;
	at: number;
	text: string;
}

async function currentActions(emulator: EmulatorProcess): Promise<ShownAction[]> {
	const response = await fetch(`${emulator.baseUrl}/_emulator/chats/${encodeURIComponent(emulator.demo.privateChatId)}/state`);
	if (!response.ok) return [];
	const state = (await response.json()) as { actions?: ShownAction[] };
	return state.actions ?? [];
}

async function showChat(emulator: EmulatorProcess, stopped: () => boolean): Promise<void> {
	const seen = new Map<number, string>();
	const actionsShown = new Set<string>();
	while (!stopped()) {
		try {
			for (const message of await emulator.history()) {
				const shown = JSON.stringify([message.text, message.edit_date, message.reply_markup]);
				if (seen.get(message.message_id) === shown) continue;
				const edited = seen.has(message.message_id);
				seen.set(message.message_id, shown);
				const who = `${message.from?.is_bot ? 'bot' : 'user'}${edited ? ' (edited)' : ''}:`;
				const head = `chat #${String(message.message_id).padEnd(3)} ${who.padEnd(14)} `;
				const indent = ' '.repeat(head.length);
				const keyboard = keyboardOf(message);
				const text = (message.text ?? '').split('\n').join(`\n${indent}`);
				process.stdout.write(`${head}${text}${keyboard ? `\n${indent}${keyboard}` : ''}\n`);
			}
			// After the messages: the user's message that set it off shows first; an action ends with the bot's next message.
			for (const action of await currentActions(emulator)) {
				const key = `${action.botId}:${action.at}`;
				if (actionsShown.has(key)) continue;
				actionsShown.add(key);
				process.stdout.write(`chat      … ${action.text.replace(/…$/, '')}\n`);
			}
		} catch {
			// the emulator is stopping
		}
		await sleep(1000);
	}
}

async function main(): Promise<void> {
	let stopping = false;
	stopAllOnExit(() => {
		stopping = true;
		process.stdout.write('\ndev: stopping n8n and the emulator…\n');
	});
	const n8nPort = portFromEnv('SERVICE_BOT_DEV_N8N_PORT', 5678);
	const emulatorPort = portFromEnv('SERVICE_BOT_DEV_EMULATOR_PORT', 8081);
	const modelPort = portFromEnv('SERVICE_BOT_DEV_MODEL_PORT', 8082);
	const pace = paceFromArgs(process.argv.slice(2));
	for (const [port, variable] of [
		[n8nPort, 'SERVICE_BOT_DEV_N8N_PORT'],
		[emulatorPort, 'SERVICE_BOT_DEV_EMULATOR_PORT'],
		[modelPort, 'SERVICE_BOT_DEV_MODEL_PORT'],
	] as const) {
		if (await portInUse(port)) {
			throw new Error(`port ${port} on 127.0.0.1 is in use (another \`npm run dev\`?); choose another with ${variable}=…`);
		}
	}

	const install = n8nInstall();
	const devDir = process.env.SERVICE_BOT_DEV_DIR || join(install.cache, 'dev');
	const userFolder = join(devDir, 'n8n-user');
	const logDir = join(devDir, 'logs');
	const packDir = join(devDir, 'pack');
	// Only what this script creates is wiped: SERVICE_BOT_DEV_DIR may be a folder that holds more.
	for (const folder of [userFolder, logDir, packDir]) rmSync(folder, { recursive: true, force: true });

	const tarball = await pack(packDir);
	await installPackage(tarball, userFolder, install);
	say(`installed ${tarball.split('/').pop()} into ${userFolder}/.n8n/nodes (as n8n installs community packages)`);

	const emulator = await EmulatorProcess.start({ port: emulatorPort, logFile: join(logDir, 'emulator.log') });
	say(`emulator running at ${emulator.baseUrl}`);
	const demo = { baseUrl: emulator.baseUrl, token: emulator.demo.token, privateChatId: emulator.demo.privateChatId };
	// The AI examples' model: scripted answers and transcriptions, offline (test/real-n8n/chat-model.ts).
	const model = await startChatModel({ port: modelPort, pace });
	const paced = pace ? `, answers of ${pace.tokens} tokens at ${pace.tokensPerSecond} tokens/s` : '';
	say(`stand-in chat model running at ${model.baseUrl} (/responses, /chat/completions, /audio/transcriptions${paced})`);

	const n8n = new N8n({ install, userFolder, port: n8nPort, brokerPort: await freePort(), logDir });
	say('importing the credential and the example workflows into n8n (each n8n command takes a few seconds)…');
	await n8n.importCredentials([demoCredential(demo), modelCredential(model.baseUrl)]);
	await n8n.importWorkflows([demoWorkflow('demoBot', demo), demoWorkflow('sendKeyboard', demo), demoWorkflow('approval', demo), demoWorkflow('firstBot', demo), aiExampleWorkflow(), exampleWorkflow(FILES_EXAMPLE), exampleWorkflow(VOICE_EXAMPLE), exampleWorkflow(APPROVAL_EXAMPLE)]);
	await n8n.publish(WORKFLOWS.demoBot.id);
	say('starting n8n…');
	await n8n.start();
	await n8n.setupOwner(DEMO_OWNER);
	await waitFor('the echo bot to register its webhook', async () => (await emulator.webhook()) ?? undefined, { limitMs: 60_000 });

	const { privateChatId: chat, userId: user } = emulator.demo;
	const api = emulator.baseUrl;
	const json = "-H 'content-type: application/json'";
	process.stdout.write(`
${bold('Service Bot dev environment is running')} (n8n 2.41.1 on Node 24, this package from its npm pack tarball)

  Editor     ${bold(n8n.baseUrl)}
  Login      ${bold(DEMO_OWNER.email)} / ${bold(DEMO_OWNER.password)}
  Workflows  "Service Bot: echo bot with buttons"   published; a trigger of your own on this bot
                                                     listens beside it (then both answer: unpublish
                                                     this one to have the chat to yourself)
             "Service Bot: my first bot (starter)"   the README's first bot: unpublish the echo bot,
                                                     publish this one, chat on the page below
             "Service Bot: send a message with a keyboard"   open it and click "Execute workflow"
             "Service Bot: ask for approval in the chat"     execute it, then tap Approve (below): a
                                                     published trigger on the bot (the echo bot, the
                                                     starter, yours) brings the answer back
             "Service Bot: approval asked from the chat"   write "refund 42": Approve / Decline in the
                                                     chat, then the outcome; nothing mapped (unpublish
                                                     the echo bot, publish this one)
             "Service Bot: AI support bot"   n8n's AI Agent, memory, Service Bot as a tool, polling:
                                                     unpublish every workflow with a Service Bot
                                                     Trigger (a polled bot has no webhook; publishing
                                                     names them), publish this one, then write "Which
                                                     plans do you have?", "What did I ask before?"
                                                     or "Please send me a note" (tap Approve)
             "Service Bot: files bot (photo size, document, text reversed)"   a photo is answered with its
                                                     width × height and size, a document with its name
                                                     and size ({{ $json.file_summary }} on the trigger's
                                                     Files output), a text reversed (unpublish the echo
                                                     bot, publish this one, send them on the chat page)
             "Service Bot: voice bot (transcribe, then AI)"   a voice note → OpenAI's Transcribe a
                                                     Recording → AI Agent, a text → the AI Agent directly
                                                     (the trigger's Files and Messages outputs; Define
                                                     below {{ $json.text }}, Simple Memory's Session ID
                                                     mapped from the trigger) → the answer (unpublish the
                                                     echo bot, publish this one, write, or attach an .ogg
                                                     or .mp3 file on the chat page: it goes as a voice note)
  Credential "Service Bot (emulator)" → ${api}, the demo bot's token
             "${MODEL_CREDENTIAL_NAME}" → ${model.baseUrl}, scripted answers and transcriptions${paced}
                                                     (workflows ${AI_EXAMPLE.id}, ${VOICE_EXAMPLE.id}; a model node you add
                                                     uses it too)
  Chat       ${bold(`${api}/`)}   open it in a browser: write as the demo user, tap buttons, see the bot live
             or from a terminal: npm run say -- "hello"   npm run tap -- "👍 Nice"
  Emulator   ${api}   demo bot @${emulator.demo.botUsername}, token ${emulator.demo.token}
             demo user ${user}, their private chat with the bot ${chat}

Send a message as the demo user (the echo bot answers with two buttons):
  curl -s ${json} -d '{"chatId":"${chat}","userId":"${user}","text":"hello"}' ${api}/_emulator/messages

Click a button under the bot's answer (its message_id is in the history; "nice" or "meh"):
  curl -s ${json} -d '{"chatId":"${chat}","userId":"${user}","messageId":2,"data":"nice"}' ${api}/_emulator/clicks

Tap Approve under the approval question (the bot's last message; its button data is in the history):
  curl -s ${api}/_emulator/chats/${chat}/history
  curl -s ${json} -d '{"chatId":"${chat}","userId":"${user}","messageId":<id>,"data":"<callback_data of ✅ Approve>"}' ${api}/_emulator/clicks

Read the chat history:
  curl -s ${api}/_emulator/chats/${chat}/history

Logs: ${logDir}   n8n data: ${userFolder} (fresh on every run)
The chat appears below as it happens. Ctrl-C stops n8n and the emulator.

`);

	const watching = showChat(emulator, () => stopping);
	// Stay up until Ctrl-C; if n8n or the emulator dies on its own, stop the rest and fail.
	const died = await Promise.race([
		emulator.proc.exited.then(() => 'the emulator'),
		n8n.exited().then(() => 'n8n'),
	]);
	if (!stopping) {
		stopping = true;
		process.stdout.write(`dev: ${died} stopped unexpectedly; see ${logDir}\n`);
		await stopAll();
		await watching;
		process.exit(1);
	}
}

main().catch(async (error: unknown) => {
	process.stdout.write(`dev: ${error instanceof Error ? error.message : String(error)}\n`);
	await stopAll();
	process.exit(1);
});
