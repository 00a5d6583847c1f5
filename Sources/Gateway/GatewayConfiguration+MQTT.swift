public import GatewayCore
public import Mosquitto

extension GatewayConfiguration {
    /// The retained bridge status: `{"state":"online"}` on every connect, `offline` as the will and at shutdown.
    public func bridgeStatus(_ state: String) -> MQTTConfiguration.StatusMessage {
        .init(topic: "\(baseTopic)/bridge/state", payload: Array(#"{"state":"\#(state)"}"#.utf8), qos: .atLeastOnce, retain: true)
    }

    /// The client settings for this configuration.
    public func mqttConfiguration() throws(MQTTError) -> MQTTConfiguration {
        let broker = try BrokerAddress(url: mqtt.url)
        let wantsTLS = broker.usesTLS || mqtt.caFile != nil || mqtt.certFile != nil
        let tls: MQTTConfiguration.TLS? =
            wantsTLS
            ? .init(caFile: mqtt.caFile, certificateFile: mqtt.certFile, keyFile: mqtt.keyFile, allowInsecure: mqtt.tlsInsecure)
            : nil
        var configuration = MQTTConfiguration(
            broker: broker,
            clientID: mqtt.clientID,
            username: mqtt.username,
            password: mqtt.password,
            tls: tls,
            keepAlive: Int32(mqtt.keepAlive),
            protocolVersion: mqtt.protocolVersion.client,
            cleanSession: mqtt.cleanSession,
            will: bridgeStatus("offline"),
            birth: bridgeStatus("online")
        )
        // "online" says requests will be heard: at start, only once the gateway has subscribed
        // (`HomeGateway.Runtime.connected`), not at the first CONNACK before its subscriptions.
        configuration.birthWaitsForAnnounce = true
        return configuration
    }

    /// The settings of the connection for the bridges' device lists (`mqtt.lists_connection`): the
    /// same broker and credentials, its own client id, a clean session, no will and no birth (the
    /// gateway's status is the main connection's).
    public func listsMQTTConfiguration() throws(MQTTError) -> MQTTConfiguration {
        var configuration = try mqttConfiguration()
        configuration.clientID = "\(mqtt.clientID)-lists"
        configuration.cleanSession = true
        configuration.will = nil
        configuration.birth = nil
        configuration.birthWaitsForAnnounce = false
        return configuration
    }
}

extension GatewayConfiguration.MQTT.ProtocolVersion {
    /// The same version, as the MQTT client takes it.
    var client: MQTTConfiguration.ProtocolVersion {
        switch self {
        case .v5: .v5
        case .v311: .v311
        }
    }
}
