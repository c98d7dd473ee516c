// Starts tools/testing/test-gateway-server.ts as a child process and resolves with its URL.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '#db/paths.ts';

export interface SpawnedGateway {
  url: string;
  close(): Promise<void>;
}

export function spawnTestGateway(options: { pairing?: boolean } = {}): Promise<SpawnedGateway> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(repoRoot, 'tools', 'testing', 'test-gateway-server.ts'),
      ...(options.pairing ? ['--pairing'] : []),
    ],
    {
      cwd: repoRoot,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      const line = output.split('\n')[0];
      if (output.includes('\n') && line)
        resolve({ url: line.trim(), close: async () => (child.stdin.end(), await exited) });
    });
    child.on('exit', (code) => reject(new Error(`the test gateway exited with ${code} before it listened`)));
  });
}
