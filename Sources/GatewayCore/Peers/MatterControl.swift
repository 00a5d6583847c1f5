/// What the HTTP API can do with the running Matter bridge, without knowing the module that runs
/// it: read its pairing state, open or revoke a commissioning window for another ecosystem, remove
/// a fabric. `MatterBridge` implements it; `homegate run` hands it to the HTTP API when
/// `matter.enabled` is true. A contract between two peers, as `HomeKitControl` is.
public protocol MatterControl: Sendable {
    func status() async throws(MatterControlError) -> MatterBridgeStatus
    /// Opens an enhanced commissioning window for `seconds` (180 to 900) with a fresh random passcode.
    func openWindow(seconds: Int) async throws(MatterControlError) -> MatterBridgeStatus
    /// Closes the open window.
    func revokeWindow() async throws(MatterControlError) -> MatterBridgeStatus
    /// Leaves fabric `index`: its controllers lose the bridge at once.
    func removeFabric(index: Int) async throws(MatterControlError) -> MatterBridgeStatus
}

/// Why a `MatterControl` request was refused, for a person; the HTTP API maps each case to a status.
public enum MatterControlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No such fabric, no open window (404).
    case notFound(String)
    /// Not now: the bridge does not serve yet, a window is open already (409).
    case conflict(String)
    /// Something of homegate's own failed: the window's verifier could not be made, the QR code drawn (500, `internal`).
    case failed(String)

    public var description: String {
        switch self {
        case .notFound(let message), .conflict(let message), .failed(let message): message
        }
    }
}

/// The Matter bridge's pairing state, as `GET /api/matter` answers it.
public struct MatterBridgeStatus: Sendable, Equatable {
    /// An ecosystem the bridge belongs to.
    public struct Fabric: Sendable, Equatable {
        public var index: Int
        public var label: String
        public var vendorID: Int
        /// The bridge's node id in that fabric.
        public var nodeID: UInt64

        public init(index: Int, label: String, vendorID: Int, nodeID: UInt64) {
            self.index = index
            self.label = label
            self.vendorID = vendorID
            self.nodeID = nodeID
        }

        /// "Apple Home", "Google Home", …: the ecosystem of a known vendor id, nil for others.
        public var vendorName: String? { Self.vendorNames[vendorID] }

        /// The vendor ids of the ecosystems people add bridges to (the CSA's vendor list), and the SDK's test vendors.
        public static let vendorNames: [Int: String] = [
            0x1349: "Apple Home", 0x6006: "Google Home", 0x1217: "Amazon Alexa", 0x110A: "Samsung SmartThings",
            0xFFF1: "Matter test vendor 1", 0xFFF2: "Matter test vendor 2", 0xFFF3: "Matter test vendor 3",
            0xFFF4: "Matter test vendor 4",
        ]
    }

    /// An open enhanced commissioning window.
    public struct Window: Sendable, Equatable {
        public var discriminator: Int
        /// Seconds until it closes.
        public var secondsLeft: Int
        /// Its codes, when homegate opened it (a window a controller opened has a passcode only that controller knows).
        public var manualPairingCode: String?
        public var qrCodePayload: String?
        /// True when homegate opened it, false when a fabric's controller did.
        public var openedHere: Bool

        public init(discriminator: Int, secondsLeft: Int, manualPairingCode: String?, qrCodePayload: String?, openedHere: Bool) {
            self.discriminator = discriminator
            self.secondsLeft = secondsLeft
            self.manualPairingCode = manualPairingCode
            self.qrCodePayload = qrCodePayload
            self.openedHere = openedHere
        }
    }

    public var serving: Bool
    public var port: Int?
    /// The codes that commission the bridge now: an open window's (homegate's), else the bridge's
    /// own while it is on no fabric; nil otherwise (it is then commissioned through a window only).
    public var manualPairingCode: String?
    public var qrCodePayload: String?
    public var window: Window?
    public var fabrics: [Fabric]

    public init(
        serving: Bool, port: Int?, manualPairingCode: String?, qrCodePayload: String?, window: Window?, fabrics: [Fabric]
    ) {
        self.serving = serving
        self.port = port
        self.manualPairingCode = manualPairingCode
        self.qrCodePayload = qrCodePayload
        self.window = window
        self.fabrics = fabrics
    }
}
