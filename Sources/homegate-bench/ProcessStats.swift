import Foundation

/// CPU seconds and peak resident memory of another process, from /proc.
struct ProcessStats {
    var cpuSeconds: Double
    var peakRSSKiB: Int
    var rssKiB: Int
    /// The part of `rssKiB` mapped from files: the program's and its libraries' code and data,
    /// which the kernel can take back and read again.
    var fileKiB: Int

    init?(pid: pid_t) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        else { return nil }
        // Fields after the command name, which may contain spaces, start after the last ')'.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        cpuSeconds = (user + system) / ticks
        func kib(_ key: String) -> Int {
            status.split(separator: "\n").first { $0.hasPrefix(key) }?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        }
        peakRSSKiB = kib("VmHWM:")
        rssKiB = kib("VmRSS:")
        fileKiB = kib("RssFile:")
    }
}

/// Latency figures in milliseconds.
struct Latencies {
    var samples: [Double]

    func percentile(_ p: Double) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
    }

    var max: Double { samples.max() ?? .nan }
}

func format(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }

/// Prints and flushes at once, so figures survive a run that is cut short.
func say(_ text: String = "") {
    print(text)
    fflush(nil)
}
