import JSON

extension Outgoing {
    /// An `ok` answer turned into the error it must be when its change could not be stored:
    /// `"kind":"storage"`, what happened, and what becomes of the change.
    func unstored(because reason: String) -> Outgoing {
        guard var fields = (try? JSONValue(parsing: payload))?.objectValue, fields["status"] == "ok" else { return self }
        fields["status"] = "error"
        fields["kind"] = "storage"
        fields["error"] = .string(
            "the change is made but could not be stored (\(reason)); it is kept and stored as soon as the "
                + "database can be written, and lost if homegate stops before then")
        var answer = Outgoing(topic, JSONValue.object(fields).serializedBytes(), retain: retain, qos: qos)
        answer.isAnswer = true
        return answer
    }
}
