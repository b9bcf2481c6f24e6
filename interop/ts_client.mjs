// A TypeScript SDK v2 client driving a stdio server: calls deploy {"env":"staging"},
// answers the confirmation, and exits 0 only when the deploy completed.
// usage: MODE=auto|pin|legacy node ts_client.mjs <server command> [args...]
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [command, ...args] = process.argv.slice(2);
const mode = process.env.MODE ?? 'auto';
const client = new Client({ name: 'mrtr-interop-ts', version: '1.0.0' }, {
  capabilities: { elicitation: { form: {} } },
  versionNegotiation: { mode: mode === 'pin' ? { pin: '2026-07-28' } : mode },
  inputRequired: { autoFulfill: true, maxRounds: 5 },
});
let asked = 0;
client.setRequestHandler('elicitation/create', async () => { asked++; return { action: 'accept', content: { confirm: true } }; });
await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
const era = client.getProtocolEra?.();
const res = await client.callTool({ name: 'deploy', arguments: { env: 'staging' } });
await client.close();
const text = res.content?.[0]?.text ?? '';
console.log(JSON.stringify({ mode, era, asked, text }));
process.exit(text?.startsWith('deployed to staging') && asked === 1 ? 0 : 1);
