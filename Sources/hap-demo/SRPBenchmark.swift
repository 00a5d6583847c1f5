import Foundation
import HAP

#if canImport(Glibc)
import Glibc
#endif

/// `hap-demo --bench-srp N`: the accessory's SRP work per pair-setup, median of N runs, as wall
/// time and as the thread's CPU time (which other processes on a busy machine do not inflate).
enum SRPBenchmark {
    struct Sample {
        var wall: [Double] = []
        var cpu: [Double] = []

        mutating func measure(_ work: () -> Void) {
            let cpuStart = threadCPUMilliseconds()
            let wallStart = ContinuousClock.now
            work()
            let wall = ContinuousClock.now - wallStart
            cpu.append(threadCPUMilliseconds() - cpuStart)
            self.wall.append(Double(wall.components.seconds) * 1000 + Double(wall.components.attoseconds) / 1e15)
        }

        var summary: String {
            String(format: "%.1f ms (CPU %.1f ms)", median(wall), median(cpu))
        }

        private func median(_ values: [Double]) -> Double {
            values.sorted()[values.count / 2]
        }
    }

    static func threadCPUMilliseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
    }

    static func run(rounds: Int) -> String {
        var verifierTime = Sample(), publicKeyTime = Sample(), sessionTime = Sample()
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<max(1, rounds) {
            var verifier: SRPVerifier?
            verifierTime.measure { verifier = SRPVerifier(password: "031-45-154") }
            guard let verifier else { continue }
            var server: SRPServer?
            publicKeyTime.measure { server = SRPServer(verifier: verifier) }
            // Any A below N costs the same exponentiations; the proof check then fails, as timed.
            let clientKey = [UInt8(0x7F)] + (1..<384).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let proof = [UInt8](repeating: 0, count: 64)
            sessionTime.measure { _ = server?.verify(clientPublicKey: clientKey, clientProof: proof) }
        }
        return "srp, median of \(rounds): verifier (once per setup code) \(verifierTime.summary), "
            + "B for M2 \(publicKeyTime.summary), S and proofs for M4 \(sessionTime.summary)"
    }
}
