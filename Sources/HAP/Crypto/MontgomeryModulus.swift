import BigInt

/// Modular exponentiation for SRP's 3072-bit prime in Montgomery form on 64-bit limbs: much
/// faster than `BigUInt.power(_:modulus:)`, which divides after every product (docs/performance.md).
struct MontgomeryModulus: Sendable {
    /// The odd modulus, least significant limb first.
    private let n: [UInt64]
    /// -n⁻¹ mod 2⁶⁴.
    private let nPrime: UInt64
    /// R² mod n with R = 2^(64·limbs), for converting into Montgomery form.
    private let rSquared: [UInt64]
    private let modulus: BigUInt

    init(_ modulus: BigUInt) {
        self.modulus = modulus
        let limbs = MontgomeryModulus.limbs(of: modulus, count: (modulus.bitWidth + 63) / 64)
        n = limbs
        // Newton's iteration doubles the correct low bits of the inverse each round (3 → 96).
        var inverse = limbs[0]
        for _ in 0..<5 { inverse = inverse &* (2 &- limbs[0] &* inverse) }
        nPrime = 0 &- inverse
        rSquared = MontgomeryModulus.limbs(of: (BigUInt(1) << (2 * 64 * limbs.count)) % modulus, count: limbs.count)
    }

    /// base^exponent mod n. Every exponent bit costs a squaring and a multiplication, and the
    /// reductions do not branch on the numbers, so that timing says little about a secret exponent.
    func power(_ base: BigUInt, _ exponent: BigUInt) -> BigUInt {
        let count = n.count
        let montgomeryBase = multiply(MontgomeryModulus.limbs(of: base % modulus, count: count), rSquared)
        var one = [UInt64](repeating: 0, count: count)
        one[0] = 1
        var result = multiply(one, rSquared)
        let words = exponent.words.map { UInt64(truncatingIfNeeded: $0) }
        var bit = words.count * 64 - 1
        while bit >= 0 {
            result = multiply(result, result)
            let product = multiply(result, montgomeryBase)
            let mask = 0 &- ((words[bit / 64] >> UInt64(bit % 64)) & 1)
            for index in 0..<count { result[index] = (product[index] & mask) | (result[index] & ~mask) }
            bit -= 1
        }
        return BigUInt(words: multiply(result, one).map { UInt(truncatingIfNeeded: $0) })
    }

    /// a·b·R⁻¹ mod n (coarsely integrated operand scanning).
    private func multiply(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        let count = n.count
        var t = [UInt64](repeating: 0, count: count + 2)
        for i in 0..<count {
            var carry: UInt64 = 0
            let bi = b[i]
            for j in 0..<count {
                (carry, t[j]) = MontgomeryModulus.multiplyAdd(a[j], bi, t[j], carry)
            }
            var overflow: Bool
            (t[count], overflow) = t[count].addingReportingOverflow(carry)
            t[count + 1] = overflow ? 1 : 0

            let m = t[0] &* nPrime
            (carry, _) = MontgomeryModulus.multiplyAdd(m, n[0], t[0], 0)
            for j in 1..<count {
                (carry, t[j - 1]) = MontgomeryModulus.multiplyAdd(m, n[j], t[j], carry)
            }
            (t[count - 1], overflow) = t[count].addingReportingOverflow(carry)
            t[count] = t[count + 1] &+ (overflow ? 1 : 0)
        }
        // t < 2n: subtract n, and keep the difference unless it borrowed past t's top limb.
        var difference = [UInt64](repeating: 0, count: count)
        var borrow: UInt64 = 0
        for j in 0..<count {
            let (first, borrowed1) = t[j].subtractingReportingOverflow(n[j])
            let (second, borrowed2) = first.subtractingReportingOverflow(borrow)
            difference[j] = second
            borrow = (borrowed1 ? 1 : 0) | (borrowed2 ? 1 : 0)
        }
        // t[count] is 0 or 1. Keep t when t - n went below zero: a borrow that no top limb pays.
        let keepT = 0 &- (borrow & (1 &- t[count]))
        var result = [UInt64](repeating: 0, count: count)
        for j in 0..<count { result[j] = (t[j] & keepT) | (difference[j] & ~keepT) }
        return result
    }

    /// a·b + c + d as (high, low); it cannot overflow 128 bits.
    @inline(__always)
    private static func multiplyAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) -> (UInt64, UInt64) {
        let (high, low) = a.multipliedFullWidth(by: b)
        let (low1, carry1) = low.addingReportingOverflow(c)
        let (low2, carry2) = low1.addingReportingOverflow(d)
        return (high &+ (carry1 ? 1 : 0) &+ (carry2 ? 1 : 0), low2)
    }

    private static func limbs(of number: BigUInt, count: Int) -> [UInt64] {
        var limbs = number.words.map { UInt64(truncatingIfNeeded: $0) }
        if limbs.count < count { limbs += [UInt64](repeating: 0, count: count - limbs.count) }
        return Array(limbs.prefix(count))
    }
}
