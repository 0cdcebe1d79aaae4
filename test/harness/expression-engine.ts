/**
 * Expressions evaluated the way n8n 2.41.1 evaluates them. n8n's VM expression engine
 * (@n8n/expression-runtime's `ExpressionEvaluator`, `N8N_EXPRESSION_ENGINE=vm`, its default) gives
 * each caller — a workflow's `Expression` — a bridge only between `acquireIsolate()` and
 * `releaseIsolate()`: an expression evaluated outside such a scope throws "No bridge acquired for this
 * context. Call acquire() first." The harness opens the scopes n8n opens around each call of a node
 * (execute-node.ts, waiting.ts, trigger-harness.ts, credential-tester.ts), and evaluates with one of:
 *
 * - `scopes` (the default): n8n's scopes, checked at every evaluation exactly where n8n's evaluator
 *   checks them (Expression.renderExpression, with the same IsolateError), the expression itself
 *   evaluated by n8n-workflow's legacy evaluator in-process. Costs nothing measurable. Checked on the
 *   workflows the harness runs (`runByTheHarness`), not on one a test builds for what the editor shows.
 * - `quickjs`: n8n's own VM engine — the same ExpressionEvaluator, tournament transform, sandbox hooks
 *   and in-engine runtime bundle — on its QuickJS (WebAssembly) bridge, as n8n's isolated-vm bridge
 *   does not build on Node 20. Differences from n8n: QuickJS ends a string at a NUL character (the
 *   fuzz tests send some), has no Intl of its own (the bridge's polyfill), and costs ~1 ms of CPU per
 *   evaluation (~100 ms per new context): too slow for every test (the three node suites took 23%
 *   longer, with 42% more CPU), so a test file asks for it with `useExpressionEngine('quickjs')`. Two more differences, both for jest: n8n's
 *   `initExpressionEngine()` and the bridge load their modules with `import()`, which jest refuses
 *   without --experimental-vm-modules, so the evaluator is built here and the WebAssembly module
 *   loaded by require; and a context that n8n's pool disposes at release is kept for the next scope.
 *   Neither changes which scope may evaluate.
 * - `legacy`: no scopes (n8n with `N8N_EXPRESSION_ENGINE=legacy`): to see whether a failure comes
 *   from a scope.
 *
 * `SERVICE_BOT_HARNESS_ENGINE=scopes|quickjs|legacy` sets the engine for the whole run, over a file's own choice.
 */
import type { QuickJSSyncVariant } from '@jitl/quickjs-ffi-types';
import releaseSync from '@jitl/quickjs-wasmfile-release-sync';
import { ExpressionEvaluator, IsolateError, QuickJsBridge } from '@n8n/expression-runtime';
import type { RuntimeBridge } from '@n8n/expression-runtime';
import { Expression } from 'n8n-workflow';
import type { Workflow } from 'n8n-workflow';
import { expressionSandboxHooks } from 'n8n-workflow/dist/cjs/expression-sandboxing.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { newQuickJSWASMModuleFromVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';

export type EngineName = 'scopes' | 'quickjs' | 'legacy';

const ENGINES: readonly EngineName[] = ['scopes', 'quickjs', 'legacy'];

function fromEnvironment(): EngineName | undefined {
	const wanted = process.env.SERVICE_BOT_HARNESS_ENGINE;
	if (wanted === undefined || wanted === '') return undefined;
	if (!ENGINES.includes(wanted as EngineName)) throw new Error(`SERVICE_BOT_HARNESS_ENGINE=${wanted}: use one of ${ENGINES.join(', ')}`);
	return wanted as EngineName;
}

/** The engine of this test file (each has its own module registry, so its own n8n-workflow). */
let engine: EngineName = fromEnvironment() ?? 'scopes';
let started: Promise<void> | undefined;

/**
 * The engine for this test file, unless the environment names one. Call it before the file runs
 * anything through the harness (at the top of the file).
 */
export function useExpressionEngine(name: EngineName): void {
	if (started) throw new Error(`the expression engine (${engine}) has already started in this file`);
	engine = fromEnvironment() ?? name;
}

/** The engine the harness runs in this file. */
export function expressionEngineName(): EngineName {
	return engine;
}

/** n8n 2.41.1's defaults (@n8n/config ExpressionEngineConfig): one warm bridge, eager acquisition. */
const ENGINE_CONFIG = { poolSize: 1, maxCodeCacheSize: 1024, bridgeTimeout: 5000, bridgeMemoryLimit: 128 } as const;

const NO_BRIDGE = 'No bridge acquired for this context. Call acquire() first.';

const silent = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };

/** What Expression calls on its evaluator; n8n-workflow keeps the field private. */
interface ExpressionStatics {
	vmEvaluator?: { acquire(caller: object): Promise<boolean>; release(caller: object): Promise<void>; dispose(): Promise<void> };
}

/** The callers that hold a scope now (the `scopes` engine). */
const inScopeNow = new WeakSet<object>();
/** The expressions of workflows the harness runs as n8n runs them: only these are checked (the `scopes` engine). */
const runByN8n = new WeakSet<object>();

/**
 * Marks a workflow the harness built to run a node as n8n does: its expressions evaluate only in
 * scopes. A workflow a test builds itself to compute what the editor shows is left alone (the editor
 * evaluates without scopes), under the `scopes` engine; under `quickjs` use asTheEditorEvaluates().
 */
export function runByTheHarness(workflow: Workflow): Workflow {
	// The evaluator's caller is the Expression inside the workflow's WorkflowExpression.
	runByN8n.add((workflow.expression as unknown as { expression: object }).expression);
	return workflow;
}
/** While the editor's evaluation runs (asTheEditorEvaluates), nothing is checked. */
let editorEvaluating = false;

/**
 * The `scopes` engine: n8n's acquire/release bookkeeping (a caller that holds a scope acquires it
 * again without effect; release ends it), and the check its evaluator makes before it evaluates
 * (ExpressionEvaluator.getBridge), made where n8n makes it: in Expression.renderExpression, before
 * the legacy evaluation.
 */
function startScopes(): void {
	(Expression as unknown as ExpressionStatics).vmEvaluator = {
		acquire: async (caller) => {
			if (inScopeNow.has(caller)) return false;
			inScopeNow.add(caller);
			return true;
		},
		release: async (caller) => {
			inScopeNow.delete(caller);
		},
		dispose: async () => {},
	};
	// The engine stays 'legacy', so renderExpression evaluates in-process; only the check is added.
	const prototype = Expression.prototype as unknown as { renderExpression(this: object, expression: string, data: object): unknown };
	const render = prototype.renderExpression;
	prototype.renderExpression = function (this: object, expression: string, data: object): unknown {
		if (!editorEvaluating && runByN8n.has(this) && !inScopeNow.has(this)) throw new IsolateError(NO_BRIDGE);
		return render.call(this, expression, data);
	};
}

const load = createRequire(__filename);

/** The QuickJS WebAssembly module and the runtime bundle, loaded once per test file. */
async function loadQuickJs(): Promise<{ module: QuickJSWASMModule; bundle: string }> {
	// The release build n8n's bridge uses, its Emscripten loader required instead of imported.
	const variant: QuickJSSyncVariant = {
		...releaseSync,
		importModuleLoader: async () => load('@jitl/quickjs-wasmfile-release-sync/emscripten-module') as Awaited<ReturnType<QuickJSSyncVariant['importModuleLoader']>>,
	};
	const module = await newQuickJSWASMModuleFromVariant(variant);
	const root = path.dirname(load.resolve('@n8n/expression-runtime/package.json'));
	return { module, bundle: readFileSync(path.join(root, 'dist', 'bundle', 'runtime.iife.js'), 'utf8') };
}

/** QuickJsBridge with its context built from the module loaded above (its own initialize() imports it). */
class HarnessQuickJsBridge extends QuickJsBridge {
	constructor(private readonly quickJs: { module: QuickJSWASMModule; bundle: string }) {
		super({ timeout: ENGINE_CONFIG.bridgeTimeout, memoryLimit: ENGINE_CONFIG.bridgeMemoryLimit, logger: silent });
	}

	async initialize(): Promise<void> {
		this.initializeSync();
	}

	initializeSync(): void {
		(this as unknown as { setupContext(module: QuickJSWASMModule, bundle: string): void }).setupContext(this.quickJs.module, this.quickJs.bundle);
	}
}

/**
 * The bridge a scope gets: a handle on a QuickJS context. Released (disposed, as n8n's pool disposes a
 * released bridge), the handle is dead for good — a context still holding it gets n8n's "no longer
 * available" — and its context goes back to the free list for the next scope.
 */
class RecycledBridge implements RuntimeBridge {
	private disposed = false;

	constructor(
		private readonly context: HarnessQuickJsBridge,
		private readonly free: HarnessQuickJsBridge[],
	) {}

	async initialize(): Promise<void> {}

	execute(...args: Parameters<RuntimeBridge['execute']>): unknown {
		return this.context.execute(...args);
	}

	async dispose(): Promise<void> {
		if (this.disposed) return;
		this.disposed = true;
		this.free.push(this.context);
	}

	isDisposed(): boolean {
		return this.disposed;
	}
}

async function startQuickJs(): Promise<void> {
	const loaded = await loadQuickJs();
	const free: HarnessQuickJsBridge[] = [];
	const evaluator = new ExpressionEvaluator({
		createBridge: () => {
			const reused = free.pop();
			if (reused) return new RecycledBridge(reused, free);
			const context = new HarnessQuickJsBridge(loaded);
			context.initializeSync();
			return new RecycledBridge(context, free);
		},
		poolSize: ENGINE_CONFIG.poolSize,
		maxCodeCacheSize: ENGINE_CONFIG.maxCodeCacheSize,
		hooks: expressionSandboxHooks,
		logger: silent,
	});
	await evaluator.initialize();
	// What initExpressionEngine() publishes once the evaluator started.
	(Expression as unknown as ExpressionStatics).vmEvaluator = evaluator;
	Expression.setExpressionEngine('quickjs');
}

/** Starts this file's engine; every harness entry point awaits it before it runs a node. Idempotent. */
export async function expressionEngine(): Promise<void> {
	started ??= engine === 'quickjs' ? startQuickJs() : engine === 'scopes' ? Promise.resolve(startScopes()) : Promise.resolve();
	await started;
}

/** n8n-workflow's own name of the implementation that evaluates ('legacy' also under `scopes`). */
export function activeEngine(): string {
	return Expression.getActiveImplementation();
}

/**
 * Runs `fn` in a scope of `workflow`'s expressions, as n8n's `acquireIsolate()` … `releaseIsolate()`
 * around a call of the node: expressions evaluate inside, and throw once it is released.
 */
export async function inScope<T>(workflow: Workflow, fn: () => Promise<T>): Promise<T> {
	const release = await openScope(workflow);
	try {
		return await fn();
	} finally {
		await release();
	}
}

/** A scope opened now and closed by the returned function (for scopes that end in another call). */
export async function openScope(workflow: Workflow): Promise<() => Promise<void>> {
	await expressionEngine();
	// false: the workflow held one already, and its holder releases it (n8n's withIsolate()).
	let open = await workflow.expression.acquireIsolate();
	return async () => {
		if (!open) return;
		open = false;
		await workflow.expression.releaseIsolate();
	};
}

/**
 * Runs `fn` as n8n's editor evaluates (its frontend engine is the legacy one in n8n 2.41.1,
 * N8N_EXPRESSION_ENGINE_FRONTEND), outside any scope: for what the editor computes from a node's
 * description (its outputs expression, a display condition) on a workflow of the test's own.
 */
export function asTheEditorEvaluates<T>(fn: () => T): T {
	if (engine === 'legacy' || !started) return fn();
	if (engine === 'scopes') {
		editorEvaluating = true;
		try {
			return fn();
		} finally {
			editorEvaluating = false;
		}
	}
	Expression.setExpressionEngine('legacy');
	try {
		return fn();
	} finally {
		Expression.setExpressionEngine('quickjs');
	}
}
