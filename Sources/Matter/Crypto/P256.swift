import CMatterCrypto

/// The P-256 point arithmetic SPAKE2+ needs, on OpenSSL's libcrypto (swift-crypto has no public API
/// for it). Points are SEC1 uncompressed (65 bytes), scalars 32 bytes big-endian. Each call makes
/// its own OpenSSL objects, so the type is freely `Sendable`.
enum P256Point {
    static let pointLength = 65
    static let scalarLength = 32

    /// `a·G + b·Q` (either term may be left out): OpenSSL's EC_POINT_mul in one call.
    static func combination(generatorScalar a: [UInt8]?, point q: [UInt8]? = nil, scalar b: [UInt8]? = nil) throws -> [UInt8] {
        try withContext { group, ctx in
            let result = EC_POINT_new(group)
            defer { EC_POINT_free(result) }
            let bnA = try a.map { try bignum($0) }
            let bnB = try b.map { try bignum($0) }
            defer { BN_free(bnA); BN_free(bnB) }
            let pointQ = try q.map { try point($0, group: group, ctx: ctx) }
            defer { EC_POINT_free(pointQ) }
            guard EC_POINT_mul(group, result, bnA, pointQ, bnB, ctx) == 1 else { throw MatterError.crypto("EC_POINT_mul failed") }
            return try encode(result, group: group, ctx: ctx)
        }
    }

    /// `p + q`.
    static func add(_ p: [UInt8], _ q: [UInt8]) throws -> [UInt8] {
        try withContext { group, ctx in
            let pointP = try point(p, group: group, ctx: ctx)
            let pointQ = try point(q, group: group, ctx: ctx)
            defer { EC_POINT_free(pointP); EC_POINT_free(pointQ) }
            guard EC_POINT_add(group, pointP, pointP, pointQ, ctx) == 1 else { throw MatterError.crypto("EC_POINT_add failed") }
            return try encode(pointP, group: group, ctx: ctx)
        }
    }

    /// `-p`.
    static func negate(_ p: [UInt8]) throws -> [UInt8] {
        try withContext { group, ctx in
            let pointP = try point(p, group: group, ctx: ctx)
            defer { EC_POINT_free(pointP) }
            guard EC_POINT_invert(group, pointP, ctx) == 1 else { throw MatterError.crypto("EC_POINT_invert failed") }
            return try encode(pointP, group: group, ctx: ctx)
        }
    }

    /// `bytes` (any length, big-endian) reduced modulo the group order, as a 32-byte scalar.
    static func reduce(_ bytes: [UInt8]) throws -> [UInt8] {
        try withContext { group, ctx in
            let value = try bignum(bytes)
            let reduced = BN_new()
            defer { BN_free(value); BN_free(reduced) }
            guard BN_nnmod(reduced, value, EC_GROUP_get0_order(group), ctx) == 1 else { throw MatterError.crypto("BN_nnmod failed") }
            return try scalarBytes(reduced)
        }
    }

    /// A uniformly random scalar in [1, n−1].
    static func randomScalar() throws -> [UInt8] {
        try withContext { group, _ in
            let value = BN_new()
            defer { BN_free(value) }
            repeat {
                guard BN_priv_rand_range(value, EC_GROUP_get0_order(group)) == 1 else {
                    throw MatterError.crypto("BN_priv_rand_range failed")
                }
            } while BN_is_zero(value) == 1
            return try scalarBytes(value)
        }
    }

    private static func withContext<T>(_ body: (OpaquePointer, OpaquePointer) throws -> T) throws -> T {
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1), let ctx = BN_CTX_new() else {
            throw MatterError.crypto("cannot make a P-256 group")
        }
        defer { EC_GROUP_free(group); BN_CTX_free(ctx) }
        return try body(group, ctx)
    }

    /// A point from its SEC1 encoding (uncompressed, or compressed for the constants); OpenSSL checks
    /// that it lies on the curve. The point at infinity is refused.
    private static func point(_ bytes: [UInt8], group: OpaquePointer, ctx: OpaquePointer) throws -> OpaquePointer {
        let wellFormed = (bytes.count == pointLength && bytes[0] == 0x04) || (bytes.count == 33 && (bytes[0] == 2 || bytes[0] == 3))
        guard wellFormed, let point = EC_POINT_new(group) else {
            throw MatterError.crypto("a P-256 point must be 65 bytes, uncompressed; got \(bytes.count) bytes")
        }
        guard EC_POINT_oct2point(group, point, bytes, bytes.count, ctx) == 1, EC_POINT_is_at_infinity(group, point) == 0 else {
            EC_POINT_free(point)
            throw MatterError.crypto("the bytes are not a point on P-256")
        }
        return point
    }

    private static func encode(_ point: OpaquePointer?, group: OpaquePointer, ctx: OpaquePointer) throws -> [UInt8] {
        guard EC_POINT_is_at_infinity(group, point) == 0 else { throw MatterError.crypto("the result is the point at infinity") }
        var out = [UInt8](repeating: 0, count: pointLength)
        guard EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &out, out.count, ctx) == pointLength else {
            throw MatterError.crypto("EC_POINT_point2oct failed")
        }
        return out
    }

    private static func bignum(_ bytes: [UInt8]) throws -> OpaquePointer {
        guard let value = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw MatterError.crypto("BN_bin2bn failed") }
        return value
    }

    private static func scalarBytes(_ value: OpaquePointer?) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: scalarLength)
        guard BN_bn2binpad(value, &out, Int32(scalarLength)) == Int32(scalarLength) else { throw MatterError.crypto("BN_bn2binpad failed") }
        return out
    }
}
