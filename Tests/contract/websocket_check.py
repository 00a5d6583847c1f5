"""The event stream as a WebSocket, against a running homegate: a client with the token receives a
write's event as {"event": ..., "data": ...} with the MQTT event's JSON, filtered by accessory; a
client without the token is closed with 1008 (policy violation) and a reason, and gets no event. Usage: websocket_check.py URL TOKEN"""
import asyncio
import json
import sys
import urllib.request

import websockets


def put(url, token, path, body):
    request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="PUT")
    request.add_header("Content-Type", "application/json")
    request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


async def main(url, token):
    ws_url = url.replace("http://", "ws://") + "/api/events"
    async with websockets.connect(ws_url + "?accessory=bulb", open_timeout=10) as refused:
        try:
            message = await asyncio.wait_for(refused.recv(), timeout=10)
            raise SystemExit(f"websocket_check: a client without the token got {message}")
        except websockets.exceptions.ConnectionClosed as closed:
            if closed.rcvd is None or closed.rcvd.code != 1008 or "token" not in closed.rcvd.reason:
                raise SystemExit(f"websocket_check: without the token the socket closed with {closed.rcvd}, expected 1008")
    async with websockets.connect(f"{ws_url}?accessory=bulb&access_token={token}", open_timeout=10) as socket:
        # The other bulb first, then this one: the first message must be this bulb's. (The server
        # sends nothing before an event, so reading one message is not waiting for silence.)
        put(url, token, "/api/accessories/bulb_color_2/lightbulb/brightness", {"value": 33})
        put(url, token, "/api/accessories/bulb/lightbulb/brightness", {"value": 44})
        message = json.loads(await asyncio.wait_for(socket.recv(), timeout=10))
    if message.get("event") != "characteristic" or message["data"].get("accessory") != "bulb" or message["data"].get("value") != 44:
        raise SystemExit(f"websocket_check: unexpected first message {message}")
    print("websocket_check: a write's event reached a WebSocket client, filtered, as {event, data}; without the token, closed (1008)")


asyncio.run(main(sys.argv[1], sys.argv[2]))
