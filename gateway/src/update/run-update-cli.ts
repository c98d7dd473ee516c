// Entry point of the detached updater: node --import tsx gateway/src/update/run-update-cli.ts '<plan JSON>'
import { runUpdateProcess, updatePlanSchema } from './run-update.ts';

const plan = updatePlanSchema.parse(JSON.parse(process.argv[2] ?? '{}'));
const state = await runUpdateProcess(plan);
process.exit(state.state === 'succeeded' ? 0 : 1);
