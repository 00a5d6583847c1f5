import Foundation

extension Accessory {
    /// `Living Room Light!` → `living_room_light_`, `Küche` → `kuche`, `客厅` → `ke_ting`: written in
    /// Latin letters without accents, lower case, and anything but a-z 0-9 _ - as `_`. ASCII names
    /// give the same id as before transliteration existed.
    public static func topicSafeID(_ text: String) -> String {
        let latin = text.unicodeScalars.allSatisfy(\.isASCII) ? text : latinized(text)
        return String(
            latin.lowercased().unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "a"..."z", "0"..."9", "_", "-": Character(scalar)
                default: "_"
                }
            })
    }

    /// The id for a device called `name`; when its name leaves nothing but `_` and `-` (`???`, an
    /// empty name, a script with no Latin form), the id comes from `fallback` (its IEEE address).
    public static func topicSafeID(_ name: String, fallback: String) -> String {
        let id = topicSafeID(name)
        let usable = id.unicodeScalars.contains { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
        return usable ? id : topicSafeID(fallback)
    }

    /// Letters the Unicode folding leaves as they are, written the way a keyboard would.
    private static let replacements: [Character: String] = [
        "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "þ": "th",
        "ß": "ss", "ı": "i",
    ]

    private static func latinized(_ text: String) -> String {
        let latin = text.applyingTransform(.toLatin, reverse: false) ?? text
        let folded = latin.folding(options: [.diacriticInsensitive], locale: nil)
        return String(folded.flatMap { replacements[$0] ?? String($0) })
    }
}
