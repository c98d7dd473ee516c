// A free TCP port on the loopback interface, for tests and benchmarks that start servers of their
// own (npm start, a PostgreSQL cluster): asked of the kernel by listening on port 0, then released.
import { createServer, type AddressInfo } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
