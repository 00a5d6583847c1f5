import Foundation
import HomeModel
import JSON
import Mappings

extension HomeCore {
    /// A refusal that comes with what was done anyway (the writes that went out, the last known value).
    struct Refusal: Error {
        var error: HomeError
        var result: HomeResult
    }

    /// Runs one command. Its reply goes out with the batch, or once the batch is stored when the
    /// command changes the home; a read's reply comes when the device answers.
    mutating func perform(_ command: HomeCommand, ticket: Ticket) {
        afterStoring(command.changesHome) { core in
            do {
                if let result = try core.run(command, ticket: ticket) { core.reply(Reply(ticket: ticket, result: result)) }
            } catch let refusal as Refusal {
                core.reply(Reply(ticket: ticket, result: refusal.result, error: refusal.error))
            } catch {
                core.reply(Reply(ticket: ticket, error: HomeError(error)))
            }
        }
    }

    mutating func reply(_ reply: Reply) { emit(.reply(reply)) }

    /// The command's result, or nil when it is answered later: each domain's handler switches over its own commands.
    private mutating func run(_ command: HomeCommand, ticket: Ticket) throws -> HomeResult? {
        switch command {
        case .values(let command): return try runValues(command, ticket: ticket)
        case .structure(let command): return try runStructure(command)
        case .accessories(let command): return try runAccessories(command)
        case .actionSets(let command): return try runActionSets(command)
        case .triggers(let command): return try runTriggers(command)
        }
    }

    /// The tree, writes and reads; a read's result is nil until the device answers.
    private mutating func runValues(_ command: ValueCommand, ticket: Ticket) throws -> HomeResult? {
        switch command {
        case .tree: return .accessories(accessories, lastSeen: lastSeen)
        case .write(let requests, let source): return .writes(write(requests, source: source))
        case .read(let path): return try read(path, ticket: ticket)
        }
    }

    /// Asks the device and answers when it reports; a device that cannot be asked gets the value as last known.
    private mutating func read(_ key: CharacteristicPath, ticket: Ticket) throws -> HomeResult? {
        guard let entry = table[key.accessory] else { throw HomeError.notFound("\(key.accessory): no such accessory") }
        guard let characteristic = entry.accessory[key.service]?[key.characteristic] else {
            throw HomeError(
                entry.accessory[key.service] == nil
                    ? HomeModelError.unknownService(accessory: key.accessory, service: key.service)
                    : HomeModelError.unknownCharacteristic(
                        accessory: key.accessory, service: key.service, characteristic: key.characteristic))
        }
        guard characteristic.type.isReadable else { throw HomeError.invalid("\(key): is write-only: the device does not report it") }
        let last = CharacteristicRead(path: key, value: characteristic.value, fresh: false)
        guard entry.accessory.reachable else {
            // As a write is: at once, not after waiting for a device that cannot answer.
            throw Refusal(error: .unreachable("\(key.accessory): is not reachable; data has the last known value"), result: .read(last))
        }
        guard let request = table.deviceRead(key) else { return .read(last) }
        emit(.device(request))
        table.awaitRead(key, ticket: ticket, deadline: now.addingTimeInterval(3))
        return nil
    }

    /// Reads not answered in time are answered with the value last known.
    mutating func expirePending() {
        for (read, last) in table.expire(at: now) {
            reply(
                Reply(
                    ticket: read.ticket, result: .read(CharacteristicRead(path: read.key, value: last, fresh: false)),
                    error: .unreachable("\(read.key.accessory): the device did not answer within 3 s")))
        }
    }
}
