import CAvahi

/// The only code that calls libavahi-client: one service, one client, one entry group, on avahi's
/// own event thread (`avahi_threaded_poll`).
///
/// Audit for `@unchecked Sendable`: the lock is avahi's threaded-poll mutex. avahi runs every
/// callback below on its poll thread with that mutex held, and the methods other threads call
/// (`start`, `update`, `stop`) take it with `avahi_threaded_poll_lock` before touching a stored `var`
/// or calling avahi. The `let`s are set once in `init`. Callbacks never block on anything but
/// avahi's own D-Bus round trips, and hand state out through `board` (a `Mutex`), never by calling
/// back into Swift code of the caller's. `avahi_threaded_poll_lock` must not be called on the poll
/// thread itself, and is not: no callback calls `update` or `stop`.
///
/// Why the callbacks act instead of only copying state: what avahi expects after a state change
/// (register on RUNNING, withdraw on REGISTERING/COLLISION, rename on a group collision) has to
/// happen under that lock and in that order, which the poll thread gives for free.
final class AvahiSession: @unchecked Sendable {
    private let poll: OpaquePointer  // AvahiThreadedPoll, freed in deinit
    let board = StateBoard()
    private let requestedName: String
    private let type: String
    private let port: UInt16
    private let domain: String?
    private let subtypes: [String]

    // Guarded by the poll lock.
    private var name: String
    private var txt: [String: String]
    private var client: OpaquePointer?  // AvahiClient
    private var group: OpaquePointer?  // AvahiEntryGroup, owned by `client`
    private var timer: OpaquePointer?  // AvahiTimeout for the next attempt, disarmed between them
    private var next: Attempt = .connect
    private var retryDelay = Retry.first
    private var phase: Phase = .idle

    private enum Phase { case idle, running, stopped }
    private enum Attempt { case connect, register }

    /// Back-off for a bus or daemon that is not there: soon after a blip, then every half minute.
    private enum Retry {
        static let first: UInt32 = 1_000
        static let longest: UInt32 = 30_000
    }

    /// avahi's alternatives run "name #2", "name #3", …; past this many something else is wrong.
    private static let maxRenames = 20

    init(_ service: DNSSDService) throws(DNSSDError) {
        guard let poll = avahi_threaded_poll_new() else {
            throw .library("avahi_threaded_poll_new failed (out of memory or file descriptors)")
        }
        self.poll = poll
        self.requestedName = service.name
        self.name = service.name
        self.type = service.type
        self.port = service.port
        self.domain = service.domain
        self.subtypes = service.subtypes
        self.txt = service.txt
    }

    deinit {
        stop()
        avahi_threaded_poll_free(poll)  // frees the timer too
    }

    private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    private var api: UnsafePointer<AvahiPoll> { avahi_threaded_poll_get(poll) }

    private func locked<T>(_ body: () throws(DNSSDError) -> T) throws(DNSSDError) -> T {
        avahi_threaded_poll_lock(poll)
        defer { avahi_threaded_poll_unlock(poll) }
        return try body()
    }

    // MARK: Called from the advertiser, on any thread but the poll thread

    func start() throws(DNSSDError) {
        try locked { () throws(DNSSDError) in
            guard phase == .idle else { throw .misuse(phase == .running ? "start() called twice" : "start() after stop()") }
            phase = .running
            // Created disarmed, armed for each attempt: the first one runs on the poll thread at once.
            timer = api.pointee.timeout_new(api, nil, onTimer, userdata)
            arm(after: 0, .connect)
        }
        if avahi_threaded_poll_start(poll) < 0 {
            board.publish(.notAdvertised(reason: "avahi's event thread could not be started"))
        }
    }

    func update(txt: [String: String]) -> TXTUpdate {
        (try? locked { () -> TXTUpdate in
            guard phase != .stopped else { return .keptForNextRegistration }
            self.txt = txt
            guard let group, let client else { return .keptForNextRegistration }
            let state = avahi_entry_group_get_state(group)
            guard state == Self.groupState(AVAHI_ENTRY_GROUP_ESTABLISHED) || state == Self.groupState(AVAHI_ENTRY_GROUP_REGISTERING)
            else { return .keptForNextRegistration }
            let list = TXTList(txt)
            let rc = avahi_entry_group_update_service_txt_strlst(
                group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0), name, type, domain, list.list
            )
            guard rc < 0 else { return .updatedInPlace }
            // The daemon would not replace it (it went away, or the name is being probed): start the
            // registration over with the new record rather than leave the old one out there.
            avahi_entry_group_reset(group)
            if avahi_client_get_state(client) == AVAHI_CLIENT_S_RUNNING { register(client) }
            return .keptForNextRegistration
        }) ?? .keptForNextRegistration
    }

    /// Withdraws the service (avahi-daemon sends goodbyes) and ends the poll thread. Idempotent.
    func stop() {
        let wasRunning =
            (try? locked { () -> Bool in
                defer { phase = .stopped }
                return phase == .running
            }) ?? false
        // Joins the thread: no callback runs after this. Not under the lock, which the thread needs to finish.
        if wasRunning { avahi_threaded_poll_stop(poll) }
        try? locked {
            if let client { avahi_client_free(client) }  // frees the group, which withdraws the service
            client = nil
            group = nil
        }
        board.finish(with: .stopped)
    }

    // MARK: On the poll thread, lock held

    private func arm(after milliseconds: UInt32, _ attempt: Attempt) {
        next = attempt
        guard let timer else {
            board.publish(.notAdvertised(reason: "avahi could not make a timer (out of memory?)"))
            return
        }
        var when = timeval()
        avahi_elapse_time(&when, milliseconds, 0)
        api.pointee.timeout_update(timer, &when)
    }

    /// Schedules the same attempt again, waiting longer each time up to `Retry.longest`.
    private func retry(_ attempt: Attempt) {
        arm(after: retryDelay, attempt)
        retryDelay = min(retryDelay * 2, Retry.longest)
    }

    fileprivate func attempt() {
        guard phase == .running else { return }
        switch next {
        case .connect: connect()
        case .register: if let client, avahi_client_get_state(client) == AVAHI_CLIENT_S_RUNNING { register(client) }
        }
    }

    private func connect() {
        // A client that failed is dropped here, outside its own callback, then made anew.
        if let client { avahi_client_free(client) }
        client = nil
        group = nil
        var error: Int32 = 0
        // NO_FAIL: with the bus up but no daemon on it, wait in CONNECTING for the daemon to appear.
        let made = avahi_client_new(api, AVAHI_CLIENT_NO_FAIL, onClientState, userdata, &error)
        guard let made else {
            // avahi frees a client it could not set up, whatever a callback may have stored.
            client = nil
            group = nil
            board.publish(
                .notAdvertised(reason: "avahi-daemon is not reachable at \(SystemBus.displayedAddress) (\(SystemBus.diagnose()))"))
            retry(.connect)
            return
        }
        client = made
    }

    fileprivate func clientChanged(_ client: OpaquePointer, _ state: AvahiClientState) {
        // The first call comes from inside avahi_client_new, before `connect` has stored the pointer.
        self.client = client
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            retryDelay = Retry.first
            register(client)
        case AVAHI_CLIENT_S_REGISTERING, AVAHI_CLIENT_S_COLLISION:
            // The daemon is (re)announcing its own host name; our records follow once it is RUNNING.
            if let group { avahi_entry_group_reset(group) }
            board.publish(.registering(name: name))
        case AVAHI_CLIENT_CONNECTING:
            board.publish(
                .notAdvertised(
                    reason:
                        "avahi-daemon is not reachable at \(SystemBus.displayedAddress) (the system D-Bus answers, but no avahi-daemon is on it; advertising as soon as one starts)"
                ))
        case AVAHI_CLIENT_FAILURE:
            let error = avahi_client_errno(client)
            if Int(error) == AVAHI_ERR_DISCONNECTED {
                board.publish(
                    .notAdvertised(
                        reason:
                            "avahi-daemon is not reachable at \(SystemBus.displayedAddress) (the connection to it was lost; reconnecting)"))
                arm(after: 0, .connect)
            } else {
                board.publish(.notAdvertised(reason: "avahi's client failed: \(Self.message(error))"))
                retry(.connect)
            }
        default:
            break
        }
    }

    private func register(_ client: OpaquePointer) {
        if group == nil {
            guard let made = avahi_entry_group_new(client, onGroupState, userdata) else {
                board.publish(
                    .notAdvertised(reason: "avahi-daemon would not make an entry group: \(Self.message(avahi_client_errno(client)))"))
                retry(.register)
                return
            }
            group = made
        }
        guard let group, avahi_entry_group_is_empty(group) != 0 else { return }  // registered already
        for _ in 0...Self.maxRenames {
            let list = TXTList(txt)
            let added = avahi_entry_group_add_service_strlst(
                group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0), name, type, domain, nil,
                port, list.list)
            if Int(added) == AVAHI_ERR_COLLISION {
                // Taken by another service on this host's daemon: the network never saw it.
                rename()
                avahi_entry_group_reset(group)
                continue
            }
            var result = added
            for subtype in subtypes where result >= 0 {
                result = avahi_entry_group_add_service_subtype(
                    group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0), name, type, domain,
                    "\(subtype)._sub.\(type)")
            }
            let committed = result < 0 ? result : avahi_entry_group_commit(group)
            guard committed >= 0 else {
                board.publish(.notAdvertised(reason: "avahi-daemon refused '\(name)' (\(type), port \(port)): \(Self.message(committed))"))
                avahi_entry_group_reset(group)
                retry(.register)
                return
            }
            board.publish(.registering(name: name))
            return
        }
        board.publish(.notAdvertised(reason: "'\(requestedName)' and \(Self.maxRenames) alternatives to it are all taken on this host"))
    }

    fileprivate func groupChanged(_ group: OpaquePointer, _ state: AvahiEntryGroupState) {
        self.group = group  // as for the client: the first call comes from inside avahi_entry_group_new
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            retryDelay = Retry.first
            board.publish(.advertised(name: name, renamedFrom: name == requestedName ? nil : requestedName))
        case AVAHI_ENTRY_GROUP_COLLISION:
            // Another host answered for the name while avahi probed: take avahi's alternative.
            rename()
            avahi_entry_group_reset(group)
            if let client { register(client) }
        case AVAHI_ENTRY_GROUP_FAILURE:
            let error = avahi_client_errno(avahi_entry_group_get_client(group))
            board.publish(.notAdvertised(reason: "avahi-daemon gave up on '\(name)': \(Self.message(error))"))
            avahi_entry_group_reset(group)
            retry(.register)
        default:
            break
        }
    }

    private func rename() {
        guard let alternative = avahi_alternative_service_name(name) else { return }
        name = String(cString: alternative)
        avahi_free(alternative)
    }

    private static func message(_ error: Int32) -> String { String(cString: avahi_strerror(error)) }

    private static func groupState(_ state: AvahiEntryGroupState) -> Int32 { Int32(bitPattern: state.rawValue) }
}

// The C callbacks: find the session and go on there. avahi holds the poll lock around each.

private func session(_ userdata: UnsafeMutableRawPointer?) -> AvahiSession {
    Unmanaged<AvahiSession>.fromOpaque(userdata!).takeUnretainedValue()
}

private func onTimer(_ timer: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) {
    session(userdata).attempt()
}

private func onClientState(_ client: OpaquePointer?, _ state: AvahiClientState, _ userdata: UnsafeMutableRawPointer?) {
    guard let client else { return }
    session(userdata).clientChanged(client, state)
}

private func onGroupState(_ group: OpaquePointer?, _ state: AvahiEntryGroupState, _ userdata: UnsafeMutableRawPointer?) {
    guard let group else { return }
    session(userdata).groupChanged(group, state)
}
