"""A Python SDK v2 server with the lesson's deploy tool; the SDK seals requestState (AES-GCM).
usage: py_server.py            (stdio)
       py_server.py http PORT  (stateless Streamable HTTP at /mcp, JSON responses)
       py_server.py http PORT --cors-origin ORIGIN
                               (the same, callable from a web page on ORIGIN: wrapped in the
                               CORSMiddleware line MRTR Lab's page gives for a Python SDK server)
"""
import json
import os
import sys

from mcp import types
from mcp.server.mcpserver import Context, MCPServer, RequestStateSecurity

mcp = MCPServer("mrtr-interop-py-server", request_state_security=RequestStateSecurity(keys=[b"mrtr-interop-py-key-0123456789abc"], ttl=float(os.environ.get("MRTR_TTL", "600"))))


@mcp.tool()
async def deploy(env: str, ctx: Context) -> types.CallToolResult | types.InputRequiredResult:
    """Deploy after the user confirms."""
    answer = (ctx.input_responses or {}).get("confirm")
    state = json.loads(ctx.request_state) if ctx.request_state else None
    if state and isinstance(answer, types.ElicitResult) and answer.action == "accept" and (answer.content or {}).get("confirm") is True:
        return types.CallToolResult(content=[types.TextContent(text=f"deployed to {state['env']}")])
    return types.InputRequiredResult(
        input_requests={"confirm": types.ElicitRequest(params=types.ElicitRequestFormParams(
            message=f"Deploy to {env}?",
            requested_schema={"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}))},
        request_state=json.dumps({"env": env}),
    )


if __name__ == "__main__":
    if len(sys.argv) > 4 and sys.argv[1] == "http" and sys.argv[3] == "--cors-origin":
        import uvicorn
        from starlette.middleware.cors import CORSMiddleware

        app = mcp.streamable_http_app(stateless_http=True, json_response=True)
        app = CORSMiddleware(app, allow_origins=[sys.argv[4]], allow_methods=['POST'], allow_headers=['*'])
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    elif len(sys.argv) > 2 and sys.argv[1] == "http":
        mcp.run("streamable-http", port=int(sys.argv[2]), stateless_http=True, json_response=True)
    else:
        mcp.run()
