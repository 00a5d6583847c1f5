"""aiohomekit as the tests' HomeKit controller, without mDNS: IpDiscovery gets the bridge's address
and port directly and the controller a stub AsyncZeroconf, as aiohomekit's own tests do."""

from unittest.mock import MagicMock

from aiohomekit.characteristic_cache import CharacteristicCacheMemory
from aiohomekit.controller.ip.controller import IpController
from aiohomekit.controller.ip.discovery import IpDiscovery
from aiohomekit.controller.ip.pairing import IpPairing
from aiohomekit.model.feature_flags import FeatureFlags
from aiohomekit.model.status_flags import StatusFlags
from aiohomekit.zeroconf import HomeKitService


def controller() -> IpController:
    return IpController(char_cache=CharacteristicCacheMemory(), zeroconf_instance=MagicMock())


def discovery(port: int, device_id: str) -> IpDiscovery:
    """The unpaired bridge on 127.0.0.1:`port`, to pair with."""
    service = HomeKitService(
        name="homegate test", id=device_id, model="homegate", feature_flags=FeatureFlags(0),
        status_flags=StatusFlags.UNPAIRED, config_num=1, state_num=1, category=2, protocol_version="1.1",
        type="_hap._tcp.local.", address="127.0.0.1", addresses=["127.0.0.1"], port=port)
    return IpDiscovery(controller(), service)


def reconnected(port: int, data: dict) -> IpPairing:
    """A stored pairing, talking to the bridge on 127.0.0.1:`port`."""
    data = dict(data)
    data.update({"AccessoryIP": "127.0.0.1", "AccessoryIPs": ["127.0.0.1"], "AccessoryPort": port})
    return IpPairing(controller(), data)
