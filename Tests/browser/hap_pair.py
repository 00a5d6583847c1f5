"""Pairs with a homegate HomeKit bridge as a controller would, and prints the controller's pairing
id: run with the Python of .build/hap-venv (aiohomekit), which scripts/hap-bridge-test.sh makes.

usage: hap_pair.py PORT DEVICE_ID SETUP_CODE"""

import asyncio
import sys
from unittest.mock import MagicMock

from aiohomekit.characteristic_cache import CharacteristicCacheMemory
from aiohomekit.controller.ip.controller import IpController
from aiohomekit.controller.ip.discovery import IpDiscovery
from aiohomekit.model.feature_flags import FeatureFlags
from aiohomekit.model.status_flags import StatusFlags
from aiohomekit.zeroconf import HomeKitService


async def pair(port: int, device_id: str, code: str) -> str:
    service = HomeKitService(
        name="homegate browser", id=device_id, model="homegate", feature_flags=FeatureFlags(0),
        status_flags=StatusFlags.UNPAIRED, config_num=1, state_num=1, category=2, protocol_version="1.1",
        type="_hap._tcp.local.", address="127.0.0.1", addresses=["127.0.0.1"], port=port)
    found = IpDiscovery(IpController(char_cache=CharacteristicCacheMemory(), zeroconf_instance=MagicMock()), service)
    finish = await found.async_start_pairing("browser")
    paired = await finish(code)
    controller_id = paired.pairing_data["iOSPairingId"]
    await paired.close()
    return controller_id


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    print(asyncio.run(pair(int(sys.argv[1]), sys.argv[2], sys.argv[3])))
