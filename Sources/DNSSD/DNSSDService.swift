import CAvahi

/// One DNS-SD service to advertise: what a controller browsing for `type` finds.
public struct DNSSDService: Sendable, Hashable {
    /// The instance name people see ("homegate"). avahi may publish it as "homegate #2" when the
    /// name is taken on the network; `AdvertisementState.advertised` says which.
    public var name: String
    /// The service type, `_hap._tcp` for HomeKit.
    public var type: String
    /// The TCP port the SRV record points at.
    public var port: UInt16
    /// The TXT record as key=value pairs (`c#`, `sf`, … for HAP).
    public var txt: [String: String]
    /// Nil lets avahi-daemon choose (`local`).
    public var domain: String?
    /// Subtypes browsable as `<subtype>._sub.<type>` (Matter's `_L3840`, `_CM`, …); none for HAP.
    public var subtypes: [String]

    public init(
        name: String, type: String = "_hap._tcp", port: UInt16, txt: [String: String] = [:], domain: String? = nil, subtypes: [String] = []
    ) {
        self.name = name
        self.type = type
        self.port = port
        self.txt = txt
        self.domain = domain
        self.subtypes = subtypes
    }

    /// Checks what avahi-daemon would refuse later, where the caller can still say which field is wrong.
    func validate() throws(DNSSDError) {
        guard avahi_is_valid_service_name(name) != 0 else {
            throw .invalidService("the instance name '\(name)' is empty or longer than 63 bytes")
        }
        guard avahi_is_valid_service_type_strict(type) != 0 else {
            throw .invalidService("the service type '\(type)' is not of the form _name._tcp or _name._udp")
        }
        if let domain, avahi_is_valid_domain_name(domain) == 0 {
            throw .invalidService("the domain '\(domain)' is not a valid domain name")
        }
        try Self.validate(txt: txt)
    }

    /// RFC 6763 §6: each "key=value" string is at most 255 bytes, keys are printable ASCII without '='.
    static func validate(txt: [String: String]) throws(DNSSDError) {
        for (key, value) in txt {
            guard !key.isEmpty, key.utf8.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E && $0 != UInt8(ascii: "=") }) else {
                throw .invalidTXT("the key '\(key)' must be non-empty printable ASCII without '='")
            }
            let length = key.utf8.count + 1 + value.utf8.count
            guard length <= 255 else {
                throw .invalidTXT("'\(key)=…' is \(length) bytes; one TXT string holds at most 255")
            }
        }
    }
}

/// An AvahiStringList made from a TXT dictionary, freed by its owner. Keys are sorted so that the
/// record's bytes are the same for the same dictionary (avahi prepends, hence the reverse order).
struct TXTList: ~Copyable {
    let list: UnsafeMutablePointer<AvahiStringList>?

    init(_ txt: [String: String]) {
        var list: UnsafeMutablePointer<AvahiStringList>? = nil
        for key in txt.keys.sorted().reversed() {
            list = avahi_string_list_add_pair(list, key, txt[key])
        }
        self.list = list
    }

    deinit { avahi_string_list_free(list) }
}
