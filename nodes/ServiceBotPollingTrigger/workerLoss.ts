/**
 * An execution n8n's queue mode lost with its worker, and the update's one more run.
 *
 * In queue mode the main process (which polls) hands each execution to a worker through Bull. When a
 * worker dies (killed, out of memory) its executions are never finished: n8n 2.x runs Bull with
 * `maxStalledCount: 0` (scaling/scaling.service.js), so once the dead worker's lock runs out (60 s) and
 * Bull's stall check (every 30 s) sees the job, `job.finished()` rejects in the main
 * ("job stalled more than maxStalledCount"); the main turns that into a MaxStalledCountError, looks at
 * the execution's status for up to 30 s more, and unless it finished meanwhile, settles the emit's done
 * promise with a run of status `error` carrying that error's message (workflow-runner.js,
 * `enqueueExecution` and `processError`). The update was acknowledged to the service long before
 * (`confirmWithinMs`), so nothing would ever run it again: the trigger emits it once more, under a new
 * deduplication key, as long as this main process runs. n8n 1.x runs Bull with one stalled retry of
 * its own (the job runs again on another worker), so it hands back a lost run only after two losses.
 *
 * Only that message counts: a run that failed on the workflow's own error is never run again. Once:
 * a second loss is n8n's to report (the execution list shows it).
 *
 * What this cannot tell (the run n8n hands back is all the trigger sees): a run that failed on its
 * own error and was saved, whose worker then died before Bull marked the job done (scaling/
 * job-processor.js: the save, then `job.progress`, then the return; milliseconds), is handed back
 * the same way (`processError` stops rechecking at any final status but `success`/`waiting` and
 * reports the stall), so it runs once more. A job that vanished from Redis never settles the done
 * promise (n8n's queue recovery only marks its execution `crashed` in the database,
 * scaling.service.js `recoverFromQueue`), nor does anything once the main stops: nothing runs again
 * then (the update was acknowledged at `confirmWithinMs`).
 */

/** The beginning of n8n's MaxStalledCountError message (n8n 1.123 and 2.41 word it the same). */
const LOST_WITH_ITS_WORKER = 'This execution failed to be processed too many times';

/** How many more runs an update lost with its worker gets. */
export const RUNS_AFTER_WORKER_LOSS = 1;

/** The part of the run n8n settles an emit's done promise with that this reads. */
interface SettledRun {
	status?: unknown;
	finished?: unknown;
	data?: { resultData?: { error?: { message?: unknown } } };
}

/** Whether n8n handed back `run` as lost with its queue-mode worker (see the top of this file). */
export function lostWithItsWorker(run: unknown): boolean {
	if (typeof run !== 'object' || run === null) return false;
	const settled = run as SettledRun;
	const message = settled.data?.resultData?.error?.message;
	return settled.status === 'error' && settled.finished !== true && typeof message === 'string' && message.startsWith(LOST_WITH_ITS_WORKER);
}
