import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The web page's files and the OpenAPI document, read from the web folder (`http.web_root`)
/// when asked: small plain files, so an edit shows on reload and nothing is built.
struct StaticFiles: Sendable {
    /// nil when no web folder was found: the API works, the page says where it looked.
    let root: URL?
    let searched: [String]

    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "json": "application/json", "svg": "image/svg+xml", "png": "image/png", "ico": "image/x-icon",
        "yaml": "application/yaml; charset=utf-8", "webmanifest": "application/manifest+json",
    ]

    /// `configured`, or `../share/homegate/web` beside the executable, or `./web`.
    init(configured: String?) {
        var candidates: [String] = []
        if let configured {
            candidates = [configured]
        } else {
            // The running file itself (/proc/self/exe), not argv[0]: started from the PATH, that is
            // just "homegate", and would be looked for in the working directory.
            let executable = (Bundle.main.executableURL ?? URL(fileURLWithPath: "/proc/self/exe")).resolvingSymlinksInPath()
            candidates = [
                executable.deletingLastPathComponent().appendingPathComponent("../share/homegate/web").standardizedFileURL.path,
                FileManager.default.currentDirectoryPath + "/web",
            ]
        }
        searched = candidates
        // The folder holds the page and the API's document; the document is always shipped.
        root = candidates.first { FileManager.default.fileExists(atPath: $0 + "/openapi.yaml") }.map { URL(fileURLWithPath: $0) }
    }

    func page(_ path: String) -> Response {
        guard let root else {
            return APIResponder.error(
                .notFound, "not_found",
                "the web page's files are not here (looked in \(searched.joined(separator: ", ")); set http.web_root)")
        }
        let relative = path == "/" ? "index.html" : String(path.dropFirst())
        // Only plain names below the folder: no `..`, no hidden files.
        let parts = relative.split(separator: "/")
        guard !parts.isEmpty, parts.allSatisfy({ !$0.hasPrefix(".") && !$0.contains("\\") }) else {
            return APIResponder.error(.notFound, "not_found", "no page \(path)")
        }
        return serve(root.appendingPathComponent(relative), notFound: "no page \(path)")
    }

    func document() -> Response {
        guard let root else {
            return APIResponder.error(.notFound, "not_found", "openapi.yaml is not here (looked in \(searched.joined(separator: ", ")))")
        }
        return serve(root.appendingPathComponent("openapi.yaml"), notFound: "openapi.yaml is missing from \(root.path)")
    }

    private func serve(_ file: URL, notFound: String) -> Response {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            return APIResponder.error(.notFound, "not_found", notFound)
        }
        let type = Self.types[file.pathExtension.lowercased()] ?? "application/octet-stream"
        return Response(
            status: .ok,
            headers: [
                .contentType: type, .cacheControl: "no-cache", .xContentTypeOptions: "nosniff",
                .contentSecurityPolicy: "default-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
