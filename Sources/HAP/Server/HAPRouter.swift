import Logging
import NIOHTTP1

/// Answers one request on one connection: pairing, the accessory database, reads and writes.
struct HAPRouter: Sendable {
    let provider: any HAPAccessoryProvider
    let store: any HAPPairingStore
    let pairSetup: PairSetup
    let database: HAPDatabase
    let registry: HAPConnectionRegistry
    let configuration: HAPServerConfiguration
    let logger: Logger

    static let knownPaths: Set<String> = [
        "/pair-setup", "/pair-verify", "/pairings", "/identify", "/accessories", "/characteristics", "/prepare",
    ]

    func respond(to request: HAPRequest, on state: HAPConnectionState) async -> HAPOutcome {
        switch (request.method, request.path) {
        case (.POST, "/pair-setup"): return await pairSetupRoute(request, state)
        case (.POST, "/pair-verify"): return await pairVerifyRoute(request, state)
        case (.POST, "/identify"): return await identifyRoute()
        default: break
        }
        guard let session = state.session else {
            guard HAPRouter.knownPaths.contains(request.path) else { return HAPOutcome(.status(.resourceDoesNotExist, http: 404)) }
            return HAPOutcome(.status(.insufficientPrivileges, http: 470))
        }
        switch (request.method, request.path) {
        case (.GET, "/accessories"): return await accessoriesRoute()
        case (.GET, "/characteristics"): return await readRoute(request, state)
        case (.PUT, "/characteristics"): return await writeRoute(request, state)
        case (.PUT, "/prepare"): return prepareRoute(request, state)
        case (.POST, "/pairings"): return await pairingsRoute(request, state, session: session)
        case (_, let path) where HAPRouter.knownPaths.contains(path):
            return HAPOutcome(.status(.invalidValue, http: 405))
        default:
            return HAPOutcome(.status(.resourceDoesNotExist, http: 404))
        }
    }

    private func identifyRoute() async -> HAPOutcome {
        guard let pairings = try? await store.pairings() else { return HAPOutcome(.status(.outOfResources, http: 500)) }
        guard pairings.isEmpty else { return HAPOutcome(.status(.insufficientPrivileges, http: 400)) }
        await provider.identify(nil)
        return HAPOutcome(.noContent)
    }

    private func accessoriesRoute() async -> HAPOutcome {
        let accessories = await provider.accessories()
        database.replace(with: accessories)
        return HAPOutcome(.json(HAPAccessoriesJSON.render(accessories)))
    }
}
