import Testing

@testable import Matter

/// Certificates the Matter SDK's own controller (home-assistant-chip-core 2025.7.0) issued while
/// commissioning matter-demo: a root, an ICAC and the node's NOC in Matter TLV. Their signatures
/// cover the X.509 form, so they check out only if it is rebuilt byte for byte as the SDK does.
@Suite("Matter certificates the SDK issued")
struct SDKCertificateTests {
    static let root = hex(
        "1530010101240201370324140118260480228127260580254d3a3706241401182407012408013009410467d20fcfacd5289696b8595a969cd08e5338"
            + "96fe8346765a69889be5dd1167e72089c567e7f0285e122b4a6708a017da37b3a6d79ed18b52f275b959e2ec6c6f370a350129011824026030041424"
            + "fd3ecad9c80b17afa43f68b8734a5639079bff30051424fd3ecad9c80b17afa43f68b8734a5639079bff18300b4068b36d4b295eb99f72bc602ccb99"
            + "3df7469ae594e134b9240e365b5e57572d42dc267bab7585a261267694df3ff9385161ce636c366f6fd43a0fdc73476d0bd718")
    static let icac = hex(
        "1530010101240201370324140118260480228127260580254d3a37062413021824070124080130094104bce05fa9e95b5d1bfce6680071d4e0522780"
            + "d4459494c4a35b28002819ef0960d1a767becfa3a4fc8991eecfe08a585e614ed9d091e4453d2688da152445951c370a35012901182402603004145a"
            + "b28f9743063353a86e12423f538df405bebf7830051424fd3ecad9c80b17afa43f68b8734a5639079bff18300b406b42023c743e284760bdeef7c2d9"
            + "98e29d844c4fb4dc5c74aa1d750163fee1c871ce978aba050c4dbd6a91268e7a70e0c360c934e2005ed4e4118be0bd5d2bbd18")
    static let noc = hex(
        "1530010101240201370324130218260480228127260580254d3a3706241501251107301824070124080130094104a6d5da863d72f7e1e993336152bf"
            + "106ad86de3bdd3a0aa94350ddfa55632f4bd1ba568887dd811dafac7bee0d96b0b2bb400d787fde0249918d4fce3fee213d1370a3501280118240201"
            + "36030402040118300414e786fce7b0f19927fdb66a7374f53d9310d010493005145ab28f9743063353a86e12423f538df405bebf7818300b40e252a2"
            + "ffb9bec2e67287832388458023031c83902fd4bf7e81d1174affb2e37e03c5ea2d944abe1d93cc2ff7b1b1faccabebe9e63d5b0ff5805943a626676e"
            + "ec18")

    @Test("the chain root → ICAC → NOC checks out over the rebuilt X.509 form")
    func chain() throws {
        let root = try MatterCertificate(tlv: Self.root)
        let icac = try MatterCertificate(tlv: Self.icac)
        let noc = try MatterCertificate(tlv: Self.noc)
        #expect(root.isCA && icac.isCA && !noc.isCA)
        #expect(root.isSigned(by: root.publicKey))
        #expect(icac.isSigned(by: root.publicKey))
        #expect(noc.isSigned(by: icac.publicKey))
        #expect(!noc.isSigned(by: root.publicKey))
        #expect(noc.fabricID == 1 && noc.nodeID != nil)
        #expect(icac.subjectKeyID == noc.authorityKeyID && root.subjectKeyID == icac.authorityKeyID)
    }

    @Test("a changed byte anywhere in what is signed breaks the signature")
    func tampering() throws {
        let root = try MatterCertificate(tlv: Self.root)
        var changed = root
        changed.notBefore += 1
        #expect(!changed.isSigned(by: root.publicKey))
        changed = root
        changed.serialNumber[0] ^= 1
        #expect(!changed.isSigned(by: root.publicKey))
    }
}
