/// A characteristic's address: accessory instance id and characteristic instance id ("2.10").
public struct HAPCharacteristicID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var aid: Int
    public var iid: Int

    public init(aid: Int, iid: Int) {
        self.aid = aid
        self.iid = iid
    }

    /// Reads "aid.iid" as in `GET /characteristics?id=1.9,2.10`.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let aid = Int(parts[0]), let iid = Int(parts[1]), aid > 0, iid > 0 else { return nil }
        self.init(aid: aid, iid: iid)
    }

    public var description: String { "\(aid).\(iid)" }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.aid, lhs.iid) < (rhs.aid, rhs.iid)
    }
}
