import Automation
public import Foundation
import HomeModel
import JSON
import Yams

/// `homegate export` and `homegate import`: homes, rooms, zones, where accessories are and what
/// they are called, action sets and triggers as YAML, to keep in git and restore onto an empty
/// database. Runtime state (last fires, deadlines, values) is not part of it.
public enum HomeArchive {
    /// The format this homegate reads: 2 added `homekit`. An export without it says 1, so that an
    /// older homegate reads it; one with it says 2, so that an older homegate refuses it rather than
    /// dropping the bridge's keys.
    public static let version = 2

    /// The YAML text of everything but runtime state; with `homekit`, the HomeKit bridge's state
    /// (keys, pairings, aid/iid map: `adapter_state` rows, JSON text by key) as well.
    /// `matter`: the Matter bridge's (its setup with the DAC key, its fabrics, its endpoint numbers).
    public static func export(
        _ home: StoredHome, homekit: [String: String]? = nil, matter: [String: String]? = nil, at date: Date = Date()
    ) -> String {
        let s = home.structure
        let homes: [JSONValue] = s.homes.map { h in
            [
                "id": .string(h.id), "name": .string(h.name), "default_room": .string(h.defaultRoom),
                "rooms": .array(s.rooms(in: h.id).map { ["id": .string($0.id), "name": .string($0.name)] }),
                "zones": .array(
                    s.zones(in: h.id).map {
                        ["id": .string($0.id), "name": .string($0.name), "rooms": .array($0.rooms.map { .string($0) })]
                    }),
            ]
        }
        var accessories: [String: JSONValue] = [:]
        for (id, placement) in s.placements {
            var fields: [String: JSONValue] = ["room": .string(placement.room)]
            if let name = placement.name { fields["name"] = .string(name) }
            if placement.pinned { fields["pinned"] = true }
            if let requested = placement.requested { fields["requested_room"] = .string(requested) }
            if !placement.serviceNames.isEmpty { fields["service_names"] = .object(placement.serviceNames.mapValues { .string($0) }) }
            accessories[id] = .object(fields)
        }
        let sets: [JSONValue] = home.actionSets.map { set in
            var fields: [String: JSONValue] = [
                "id": .string(set.id), "name": .string(set.name), "home": .string(set.home),
                "actions": .array(set.actions.map(\.json)),
            ]
            if let recall = set.recall { fields["zigbee2mqtt_scene"] = recall.json }
            return .object(fields)
        }
        let triggers: [JSONValue] = home.triggers.map { .object($0.json) }
        var pairs: [(Node, Node)] = [
            (Node("homegate_export"), YAMLJSON.node(.integer(homekit == nil && matter == nil ? 1 : version))),
            (Node("primary_home"), YAMLJSON.node(.string(s.primaryHome))),
            (Node("homes"), YAMLJSON.node(.array(homes))),
            (Node("accessories"), YAMLJSON.node(.object(accessories))),
            (Node("action_sets"), YAMLJSON.node(.array(sets))),
            (Node("triggers"), YAMLJSON.node(.array(triggers))),
        ]
        if let homekit {
            // A key a line: the values are long JSON texts.
            let rows = homekit.sorted { $0.key < $1.key }.map { (Node($0.key), YAMLJSON.node(.string($0.value))) }
            pairs.append((Node("homekit"), Node(rows, Tag(.map), .block)))
        }
        if let matter {
            let rows = matter.sorted { $0.key < $1.key }.map { (Node($0.key), YAMLJSON.node(.string($0.value))) }
            pairs.append((Node("matter"), Node(rows, Tag(.map), .block)))
        }
        let body = (try? Yams.serialize(node: Node(pairs, Tag(.map), .block), width: 120, sortKeys: false)) ?? ""
        var header = "# homegate export of \(instantText(date)). Restore onto an empty database with: homegate import <this file>\n"
        if homekit != nil {
            header += "# It holds the HomeKit bridge's secret key and pairings: keep it as private as the database.\n"
        }
        if matter != nil {
            header += "# It holds the Matter bridge's keys and fabrics: keep it as private as the database.\n"
        }
        return header + body
    }
}

/// A problem in an archive file, with where it is.
public struct ArchiveError: Error, CustomStringConvertible {
    public var problems: [String]
    public var description: String { problems.joined(separator: "\n") }
}
