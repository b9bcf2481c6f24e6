// A TypeScript SDK v2 server with the lesson's deploy tool, signed requestState (the SDK's
// codec): stdio by default, or Streamable HTTP with `http PORT` (add `--cors-origin ORIGIN` to
// let a web page on ORIGIN call it: an Express app with the cors middleware).
import http from 'node:http';
import { McpServer, createMcpHandler, inputRequired, acceptedContent, createRequestStateCodec } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

const codec = createRequestStateCodec({ key: 'mrtr-interop-ts-key-0123456789abcdef', ttlSeconds: Number(process.env.MRTR_TTL ?? 120) });
const confirm = z.object({ confirm: z.boolean() });

function factory() {
  const server = new McpServer({ name: 'mrtr-interop-ts-server', version: '1.0.0' },
    { capabilities: { tools: {} }, requestState: { verify: codec.verify } });
  server.registerTool('deploy', { description: 'Deploy after the user confirms', inputSchema: z.object({ env: z.string() }) },
    async ({ env }, ctx) => {
      const state = ctx.mcpReq.requestState();
      const ok = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirm);
      if (!state || ok?.confirm !== true) {
        return inputRequired({
          inputRequests: { confirm: inputRequired.elicit({ message: `Deploy to ${env}?`, requestedSchema: confirm }) },
          requestState: await codec.mint({ env }),
        });
      }
      return { content: [{ type: 'text', text: `deployed to ${state.env}` }] };
    });
  return server;
}

if (process.argv[2] === 'http') {
  const port = Number(process.argv[3] ?? 0);
  const handler = createMcpHandler(factory, { onerror: (e) => console.error('[ts-server]', e?.message ?? e) });
  const serve = async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const r = await handler.fetch(new Request(`http://127.0.0.1${req.url}`, {
      method: req.method, headers: req.headers, body: ['GET', 'HEAD'].includes(req.method) ? undefined : Buffer.concat(chunks) }));
    res.writeHead(r.status, Object.fromEntries(r.headers));
    if (r.body) for await (const c of r.body) res.write(c);
    res.end();
  };
  const listening = (srv) => () => console.error(`listening on http://127.0.0.1:${srv.address().port}/mcp`);
  if (process.argv[4] === '--cors-origin') {
    // Callable from a web page on that origin, with the line MRTR Lab's page gives for an
    // Express app: the cors middleware before the MCP route.
    const { default: express } = await import('express');
    const { default: cors } = await import('cors');
    const origin = process.argv[5];
    const app = express();
    app.use(cors({ origin, exposedHeaders: ['Mrtr-Replica'] }));
    app.all('/mcp', serve);
    const srv = app.listen(port, '127.0.0.1', () => listening(srv)());
  } else {
    const srv = http.createServer(serve);
    srv.listen(port, '127.0.0.1', listening(srv));
  }
} else {
  serveStdio(factory, { onerror: (e) => console.error('[ts-server]', e?.message ?? e) });
}
