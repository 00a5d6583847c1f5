"""The controller's side of the mDNS test: python-zeroconf (the library aiohomekit browses with) on one
address in network namespace B, answering the orchestrator's questions one JSON line at a time.

    resolve.py ADDRESS SERVICE_TYPE       e.g. resolve.py 192.0.2.2 _hap._tcp.local.

Commands on stdin, each answered by one line on stdout:
  {"cmd": "expect", "name": N, "port": P, "txt": {...}, "address": A, "timeout": S}
      waits until instance N resolves with SRV port P, exactly this TXT, and address A
  {"cmd": "gone", "name": N, "timeout": S}
      waits until instance N is withdrawn (a goodbye seen by the browser)
  {"cmd": "register", "name": N, "port": P, "timeout": S}
      advertises instance N from B itself (zeroconf probes first), to collide with A's names
Each answer carries the browser events (Added/Updated/Removed) seen since the previous command, so
that the orchestrator can tell an in-place TXT update from a withdrawal and a new registration.
"""

import asyncio
import json
import socket
import sys

from zeroconf import IPVersion
from zeroconf import ServiceInfo
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf


class Watcher:
    def __init__(self, zeroconf, service_type):
        self.zeroconf = zeroconf
        self.type = service_type
        self.events = []  # [state, instance name], since the last command
        self.removed = set()
        self.changed = asyncio.Event()

    def on_change(self, zeroconf, service_type, name, state_change):
        state = state_change.name
        self.events.append([state, name])
        if state == "Removed":
            self.removed.add(name)
        else:
            self.removed.discard(name)
        self.changed.set()

    def take_events(self):
        events, self.events = self.events, []
        return events

    async def wait_for_change(self, seconds):
        """Wakes on the next browser event, or after `seconds` to ask again (an answer may be cached)."""
        self.changed.clear()
        try:
            await asyncio.wait_for(self.changed.wait(), seconds)
        except asyncio.TimeoutError:
            pass

    async def look_up(self, name):
        info = AsyncServiceInfo(self.type, f"{name}.{self.type}")
        if not await info.async_request(self.zeroconf, 1000):
            return None
        txt = {
            key.decode(): (value.decode() if value is not None else None)
            for key, value in (info.properties or {}).items()
        }
        return {"port": info.port, "txt": txt, "addresses": sorted(info.parsed_addresses())}

    async def expect(self, command):
        loop = asyncio.get_running_loop()
        deadline = loop.time() + command["timeout"]
        wanted = {"port": command["port"], "txt": command["txt"]}
        seen = None
        while True:
            seen = await self.look_up(command["name"])
            if seen is not None and {"port": seen["port"], "txt": seen["txt"]} == wanted and command["address"] in seen["addresses"]:
                return {"ok": True, "seen": seen}
            remaining = deadline - loop.time()
            if remaining <= 0:
                return {"ok": False, "why": f"no match within {command['timeout']} s", "seen": seen}
            await self.wait_for_change(min(1.0, remaining))

    async def gone(self, command):
        loop = asyncio.get_running_loop()
        deadline = loop.time() + command["timeout"]
        full = f"{command['name']}.{self.type}"
        while full not in self.removed:
            remaining = deadline - loop.time()
            if remaining <= 0:
                return {"ok": False, "why": f"no goodbye within {command['timeout']} s"}
            await self.wait_for_change(remaining)
        return {"ok": True}


async def register(azc, address, service_type, command):
    info = ServiceInfo(
        service_type, f"{command['name']}.{service_type}", port=command["port"],
        addresses=[socket.inet_aton(address)], server="hgmdns-resolver.local.", properties={"by": "B"})
    try:
        await asyncio.wait_for(await azc.async_register_service(info), command["timeout"])
    except Exception as error:  # the orchestrator prints it
        return {"ok": False, "why": f"{type(error).__name__}: {error}"}
    return {"ok": True}


async def main():
    address, service_type = sys.argv[1], sys.argv[2]
    # One interface, IPv4 only: the namespace's veth end and nothing else.
    azc = AsyncZeroconf(interfaces=[address], ip_version=IPVersion.V4Only)
    watcher = Watcher(azc.zeroconf, service_type)
    browser = AsyncServiceBrowser(azc.zeroconf, [service_type], handlers=[watcher.on_change])
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    print(json.dumps({"ready": True}), flush=True)
    try:
        while line := await reader.readline():
            command = json.loads(line)
            if command["cmd"] == "expect":
                answer = await watcher.expect(command)
            elif command["cmd"] == "gone":
                answer = await watcher.gone(command)
            elif command["cmd"] == "register":
                answer = await register(azc, address, service_type, command)
            else:
                answer = {"ok": False, "why": f"unknown command {command['cmd']!r}"}
            answer["events"] = watcher.take_events()
            print(json.dumps(answer), flush=True)
    finally:
        await azc.async_unregister_all_services()
        await browser.async_cancel()
        await azc.async_close()


if __name__ == "__main__":
    asyncio.run(main())
