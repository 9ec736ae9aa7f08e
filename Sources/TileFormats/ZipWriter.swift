import Foundation

/// Writes a zip, the way tile packages are built: stored entries (or deflated ones, as ArcMap writes
/// them), sequentially into a file, with a fixed timestamp so that the same entries always give the
/// same bytes. Entries past 4 GiB would need
/// zip64, which the packages written here never reach; they are refused.
public final class ZipWriter {
    private let handle: FileHandle
    private var offset: UInt64 = 0
    private var directory = Data()
    private var count = 0
    /// 1980-01-01 00:00, the zip epoch.
    private static let dosDate: UInt16 = 0x21, dosTime: UInt16 = 0

    public init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw TileFormatError.cannotOpen(path: path, reason: "cannot create the file")
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    public func add(_ name: String, _ data: Data, deflated: Bool = false) throws {
        let nameBytes = Data(name.utf8)
        let body = deflated ? Deflate.deflate(data, container: .raw) : data
        guard ZipArchive.isSafe(name), offset + UInt64(body.count) < 0xFFFF_FFFF, data.count < 0xFFFF_FFFF, count < 0xFFFF else {
            throw TileFormatError.malformed("cannot store \(name) in a plain zip")
        }
        let crc = Deflate.crc32(data)
        var local = Data()
        local.append(littleEndian: UInt32(0x0403_4B50))
        local.append(littleEndian: UInt16(deflated ? 20 : 10))   // version needed
        local.append(littleEndian: UInt16(0x0800))        // flags: names are UTF-8
        local.append(littleEndian: UInt16(deflated ? 8 : 0))     // deflated or stored
        local.append(littleEndian: Self.dosTime)
        local.append(littleEndian: Self.dosDate)
        local.append(littleEndian: crc)
        local.append(littleEndian: UInt32(body.count))
        local.append(littleEndian: UInt32(data.count))
        local.append(littleEndian: UInt16(nameBytes.count))
        local.append(littleEndian: UInt16(0))
        local.append(nameBytes)

        var central = Data()
        central.append(littleEndian: UInt32(0x0201_4B50))
        central.append(littleEndian: UInt16(0x031E))      // made by: Unix, spec 3.0
        central.append(local[4..<26])                      // version needed … uncompressed size, as above
        central.append(littleEndian: UInt16(nameBytes.count))
        central.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 0]) // extra, comment, disk, internal attributes
        central.append(littleEndian: UInt32(name.hasSuffix("/") ? 0o040755 << 16 : 0o100644 << 16))
        central.append(littleEndian: UInt32(offset))
        central.append(nameBytes)
        directory.append(central)
        count += 1

        try handle.write(contentsOf: local)
        try handle.write(contentsOf: body)
        offset += UInt64(local.count + body.count)
    }

    /// Writes the central directory and closes the file, flushed to disk.
    public func finish() throws {
        var end = Data()
        end.append(littleEndian: UInt32(0x0605_4B50))
        end.append(littleEndian: UInt32(0))               // disk numbers
        end.append(littleEndian: UInt16(count))
        end.append(littleEndian: UInt16(count))
        end.append(littleEndian: UInt32(directory.count))
        end.append(littleEndian: UInt32(offset))
        end.append(littleEndian: UInt16(0))               // comment length
        try handle.write(contentsOf: directory)
        try handle.write(contentsOf: end)
        try handle.synchronize()
        try handle.close()
    }
}
