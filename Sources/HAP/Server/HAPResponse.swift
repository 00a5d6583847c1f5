/// A response or an event, written to the connection as one buffer.
struct HAPResponse: Sendable {
    var status: Int
    var reason: String
    var contentType: String?
    var body: [UInt8]

    static let tlvType = "application/pairing+tlv8"
    static let jsonType = "application/hap+json"

    static func tlv(_ tlv: TLV8, status: Int = 200) -> HAPResponse {
        HAPResponse(status: status, reason: reason(status), contentType: tlvType, body: tlv.encoded())
    }

    static func json(_ text: String, status: Int = 200) -> HAPResponse {
        HAPResponse(status: status, reason: reason(status), contentType: jsonType, body: Array(text.utf8))
    }

    /// `{"status": -704xx}` with an HTTP status, as HAP answers a refused request.
    static func status(_ status: HAPStatus, http: Int) -> HAPResponse {
        json("{\"status\":\(status.rawValue)}", status: http)
    }

    static let noContent = HAPResponse(status: 204, reason: reason(204), contentType: nil, body: [])

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 207: "Multi-Status"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 413: "Payload Too Large"
        case 422: "Unprocessable Entity"
        case 470: "Connection Authorization Required"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }

    /// The bytes on the wire; `protocolName` is "HTTP/1.1", or "EVENT/1.0" for a notification.
    func serialized(protocolName: String = "HTTP/1.1", closing: Bool = false) -> [UInt8] {
        var head = "\(protocolName) \(status) \(reason)\r\n"
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        if status != 204 { head += "Content-Length: \(body.count)\r\n" }
        if closing { head += "Connection: close\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }
}
