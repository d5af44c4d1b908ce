/// Constants of the DEFLATE format (RFC 1951, section 3.2.5).
enum DeflateTables {
    /// Base match length for length symbols 257...285.
    static let lengthBase: [UInt16] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                       35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    /// The length symbol index (0...28, symbol 257 + index) of each match length 3...258, at `length - 3`.
    static let lengthSymbolIndex: [UInt8] = (3...258).map { length -> UInt8 in
        var index = 28
        while index > 0 && Int(lengthBase[index]) > length { index -= 1 }
        return UInt8(index)
    }
    /// Extra bits after length symbols 257...285.
    static let lengthExtra: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                       3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    /// Base distance for distance symbols 0...29.
    static let distanceBase: [UInt16] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                         257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
                                         8193, 12289, 16385, 24577]
    /// Extra bits after distance symbols 0...29.
    static let distanceExtra: [UInt8] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                         7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
    /// Order in which code-length code lengths are stored in a dynamic block header.
    static let codeLengthOrder: [Int] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// Code lengths of the fixed literal/length code (block type 1).
    static let fixedLiteralLengths: [UInt8] = (0..<288).map { s -> UInt8 in
        s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8
    }
    /// Code lengths of the fixed distance code: 30 usable codes of 5 bits (32 counting the reserved ones).
    static let fixedDistanceLengths: [UInt8] = [UInt8](repeating: 5, count: 32)
}
