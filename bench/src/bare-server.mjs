// A bare Fastify route on the server's own Fastify, the baseline the API's throughput is compared with.
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT } from './portal.mjs';

const require = createRequire(path.join(ROOT, 'server', 'package.json'));
const Fastify = require('fastify');
const app = Fastify({ logger: false });
app.get('/bare', async () => ({ isFederated: false }));
await app.listen({ port: Number(process.argv[2] ?? 3090), host: 'localhost' });
process.send?.('listening');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
