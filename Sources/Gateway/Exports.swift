// The core's typed surface is the gateway's public API too: front ends that import Gateway speak it.
@_exported public import GatewayCore
