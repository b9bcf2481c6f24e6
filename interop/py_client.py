"""A Python SDK v2 client: calls deploy {"env": "staging"} on a stdio server or an HTTP URL,
answers the confirmation, and exits 0 only when the deploy completed.
usage: py_client.py auto|legacy|2026-07-28 <server command...>|<url>
"""
import asyncio
import json
import sys

from mcp import Client, StdioServerParameters, types

mode, target = sys.argv[1], sys.argv[2:]
asked = 0


async def on_elicit(context, params: types.ElicitRequestParams):
    global asked
    asked += 1
    return types.ElicitResult(action="accept", content={"confirm": True})


async def main() -> int:
    server = target[0] if target[0].startswith("http") else StdioServerParameters(command=target[0], args=target[1:])
    async with Client(server, mode=mode, elicitation_callback=on_elicit) as client:
        version = client.session.protocol_version
        res = await client.call_tool("deploy", {"env": "staging"})
        text = res.content[0].text if res.content else ""
        print(json.dumps({"mode": mode, "version": str(version), "asked": asked, "text": text}))
        return 0 if str(text).startswith("deployed to staging") and asked == 1 else 1


sys.exit(asyncio.run(main()))
