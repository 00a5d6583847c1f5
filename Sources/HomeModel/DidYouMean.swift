/// The nearest of `candidates` to `word`, as " (did you mean 'x'?)", or "". Only names of ordinary
/// length are compared, against the first 2,000 candidates: a request carrying a 60,000-character
/// name must not hold the gateway up.
public func didYouMean(_ word: String, _ candidates: some Sequence<String>) -> String {
    guard word.count <= 64 else { return "" }
    let candidates = Array(candidates.prefix(2_000)).filter { $0.count <= 64 }
    var best: (String, Int)?
    for candidate in candidates.sorted() {
        let distance = levenshtein(word.lowercased(), candidate.lowercased())
        if distance < best?.1 ?? Int.max { best = (candidate, distance) }
    }
    if best.map({ $0.1 > max(2, word.count / 3) }) ?? true,
        let prefixed = candidates.sorted().first(where: { $0.lowercased().hasPrefix(word.lowercased()) && word.count >= 3 })
    {
        return " (did you mean '\(prefixed)'?)"
    }
    guard let best, best.1 <= max(2, word.count / 3) else { return "" }
    return " (did you mean '\(best.0)'?)"
}

private func levenshtein(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
