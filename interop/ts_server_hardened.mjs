// The TypeScript SDK v2 deploy server of ts_server.mjs, hardened where the SDK lets its author:
// the ticket is bound to the caller and to the request (the tool and its arguments) through
// the codec's bind hook, so verify refuses another caller's ticket and a retry with other
// arguments before the handler runs. Streamable HTTP only: `http PORT`.
// The caller is the lab's demo convention, not authentication: the bearer token names them.
import http from 'node:http';
import { AsyncLocalStorage } from 'node:async_hooks';
import { McpServer, createMcpHandler, inputRequired, acceptedContent, createRequestStateCodec } from '@modelcontextprotocol/server';
import * as z from 'zod';

// The JSON-RPC request being served, for bind (the SDK's context does not carry its params).
const serving = new AsyncLocalStorage();

const codec = createRequestStateCodec({
  key: 'mrtr-interop-ts-key-0123456789abcdef',
  ttlSeconds: Number(process.env.MRTR_TTL ?? 120),
  // Minted and verified with the same function: any difference refuses the ticket.
  bind: (ctx) => {
    const params = serving.getStore()?.params ?? {};
    const args = params.arguments ?? {};
    const request = [ctx.mcpReq.method, params.name, JSON.stringify(args, Object.keys(args).sort())];
    return JSON.stringify([ctx.http?.authInfo?.clientId ?? '', ...request]);
  },
});
const confirm = z.object({ confirm: z.boolean() });

function factory() {
  const server = new McpServer({ name: 'mrtr-interop-ts-server-hardened', version: '1.0.0' },
    { capabilities: { tools: {} }, requestState: { verify: codec.verify } });
  server.registerTool('deploy', { description: 'Deploy after the user confirms', inputSchema: z.object({ env: z.string() }) },
    async ({ env }, ctx) => {
      const state = ctx.mcpReq.requestState();
      const ok = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirm);
      if (!state || ok?.confirm !== true) {
        return inputRequired({
          inputRequests: { confirm: inputRequired.elicit({ message: `Deploy to ${env}?`, requestedSchema: confirm }) },
          requestState: await codec.mint({ env }, ctx),
        });
      }
      return { content: [{ type: 'text', text: `deployed to ${state.env}` }] };
    });
  return server;
}

const handler = createMcpHandler(factory, { onerror: (e) => console.error('[ts-server-hardened]', e?.message ?? e) });
const srv = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = Buffer.concat(chunks);
  let message = null;
  try { message = JSON.parse(body.toString('utf8')); } catch { /* the SDK answers bad JSON itself */ }
  const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  const authInfo = token ? { token, clientId: token, scopes: [] } : undefined;
  const r = await serving.run(message && typeof message === 'object' ? message : {}, () =>
    handler.fetch(new Request(`http://127.0.0.1${req.url}`, {
      method: req.method, headers: req.headers, body: ['GET', 'HEAD'].includes(req.method) ? undefined : body }), { authInfo }));
  res.writeHead(r.status, Object.fromEntries(r.headers));
  if (r.body) for await (const c of r.body) res.write(c);
  res.end();
});
srv.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => console.error(`listening on http://127.0.0.1:${srv.address().port}/mcp`));
