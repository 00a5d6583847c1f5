"""Run in namespace B by mdns_bridge_test.py: finds homegate's HomeKit bridge by DNS-SD (python-zeroconf,
as aiohomekit does), pairs with it through aiohomekit at the address the advertisement gave, and
watches the TXT record's sf flip to 0. One JSON line per step on stdout.

    python mdns_client.py INTERFACE_ADDRESS INSTANCE_NAME SETUP_CODE"""

import asyncio
import json
import sys
import time
from unittest.mock import MagicMock

from aiohomekit.characteristic_cache import CharacteristicCacheMemory
from aiohomekit.controller.ip.controller import IpController
from aiohomekit.controller.ip.discovery import IpDiscovery
from aiohomekit.model.feature_flags import FeatureFlags
from aiohomekit.model.status_flags import StatusFlags
from aiohomekit.zeroconf import HomeKitService
from zeroconf import InterfaceChoice, IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

TYPE = "_hap._tcp.local."


def say(**fields):
    print(json.dumps(fields), flush=True)


async def txt_of(zeroconf, name):
    info = AsyncServiceInfo(TYPE, f"{name}.{TYPE}")
    if not await info.async_request(zeroconf.zeroconf, 3000):
        return None, None
    txt = {k.decode(): (v.decode() if v is not None else None) for k, v in info.properties.items()}
    return info, txt


async def every_address(zeroconf, name):
    """Each address advertised (IPv4 and IPv6, once both came) and whether it takes a TCP connection."""
    deadline = time.monotonic() + 20
    addresses, port = [], None
    while time.monotonic() < deadline:
        info, _ = await txt_of(zeroconf, name)
        if info:
            addresses, port = info.parsed_scoped_addresses(IPVersion.All), info.port
            if any(":" in a for a in addresses) and any("." in a for a in addresses):
                break
        await asyncio.sleep(0.2)
    results = {}
    for address in addresses:
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(address, port), 5)
            writer.close()
            results[address.split("%")[0]] = "accepted"
        except (OSError, asyncio.TimeoutError) as error:
            results[address.split("%")[0]] = f"{type(error).__name__}: {error}"
    return results


async def wait_for_txt(zeroconf, name, step, condition, seconds):
    """Says `step` once the advertised TXT record meets `condition`, or that it did not in time."""
    deadline = time.monotonic() + seconds
    txt = None
    while time.monotonic() < deadline:
        _, txt = await txt_of(zeroconf, name)
        if txt and condition(txt):
            say(step=step, ok=True, txt=txt)
            return
        await asyncio.sleep(0.5)
    say(step=step, ok=False, txt=txt)


async def main(interface, name, code):
    zeroconf = AsyncZeroconf(interfaces=InterfaceChoice.All, ip_version=IPVersion.All)
    try:
        deadline = time.monotonic() + 30
        info = txt = None
        while time.monotonic() < deadline:
            info, txt = await txt_of(zeroconf, name)
            if info and info.parsed_addresses(IPVersion.V4Only):
                break
            await asyncio.sleep(0.2)
        if not info or not info.parsed_addresses(IPVersion.V4Only):
            say(step="found", ok=False)
            return
        address = info.parsed_addresses(IPVersion.V4Only)[0]
        say(step="found", ok=True, txt=txt, address=address, port=info.port)
        say(step="addresses", addresses=await every_address(zeroconf, name))
        service = HomeKitService(
            name=name, id=txt["id"], model=txt["md"], feature_flags=FeatureFlags(int(txt["ff"])),
            status_flags=StatusFlags(int(txt["sf"])), config_num=int(txt["c#"]), state_num=int(txt["s#"]),
            category=int(txt["ci"]), protocol_version=txt["pv"], type=TYPE, address=address, addresses=[address],
            port=info.port)
        controller = IpController(char_cache=CharacteristicCacheMemory(), zeroconf_instance=MagicMock())
        found = IpDiscovery(controller, service)
        finish = await found.async_start_pairing("mdns")
        paired = await finish(code)
        accessories = await paired.list_accessories_and_characteristics()
        await paired.close()
        say(step="paired", ok=True, accessories=len(accessories))
        await wait_for_txt(zeroconf, name, "sf", lambda txt: txt.get("sf") == "0", 20)
        # The harness now gives the bridge a new identity (`homegate hap reset --identity`).
        paired_id = txt["id"]
        await wait_for_txt(zeroconf, name, "new id", lambda txt: txt.get("id") != paired_id and txt.get("sf") == "1", 60)
    finally:
        await zeroconf.async_close()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
