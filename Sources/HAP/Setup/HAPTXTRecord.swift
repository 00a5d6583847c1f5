/// The DNS-SD TXT record of `_hap._tcp`.
public enum HAPTXTRecord {
    /// `c#`, `ff`, `id`, `md`, `pv`, `s#`, `sf`, `ci`, `sh`.
    public static func make(
        identity: HAPIdentity, model: String, category: HAPCategory, configurationNumber: UInt32, isPaired: Bool
    ) -> [String: String] {
        [
            "c#": String(configurationNumber),
            "ff": "0",
            "id": identity.deviceID.description,
            "md": model,
            "pv": "1.1",
            "s#": "1",
            "sf": isPaired ? "0" : "1",
            "ci": String(category.rawValue),
            "sh": HAPSetupURI.setupHash(setupID: identity.setupID, deviceID: identity.deviceID),
        ]
    }
}
