// A test gateway (gateway/test/helpers.ts) in a process of its own, for tests that run in a browser-like
// environment (happy-dom replaces Node's URL, which the gateway needs). It prints its URL as one
// line and stops when its parent closes stdin. Arguments: --pairing for PIP_PAIRING=on.
import { startTestGateway } from '#gateway/test/helpers.ts';

const gateway = await startTestGateway({ config: { pipPairing: process.argv.includes('--pairing') } });
const url = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${url}\n`);
process.stdin.resume();
process.stdin.on('end', () => void gateway.close().then(() => process.exit(0)));
