import FuzzTargets

/// libFuzzer's entry: one input, fed to the matter-bridge target; a broken property is a crash for it to keep.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    if let failure = FuzzTarget(rawValue: "matter-bridge")!.run(Array(UnsafeBufferPointer(start: data, count: size))) { fatalError(failure) }
    return 0
}
