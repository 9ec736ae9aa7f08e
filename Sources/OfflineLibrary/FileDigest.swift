import CCrypto
import Foundation
import LibraryModel

/// SHA-256 of a file, by libcrypto: what a fleet mirror lists for each of its files and a device
/// checks what it took from the mirror against.
enum FileDigest {
    /// Lowercase hex; throws when the file cannot be read.
    static func sha256(path: String) throws(LibraryError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .corrupt(path: path, detail: String(cString: strerror(errno))) }
        defer { close(fd) }
        guard let context = EVP_MD_CTX_new() else { throw .write(path: path, errno: ENOMEM) }
        defer { EVP_MD_CTX_free(context) }
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer, chunk)
            if n < 0, errno == EINTR { continue }
            if n < 0 { throw .corrupt(path: path, detail: String(cString: strerror(errno))) }
            if n == 0 { break }
            EVP_DigestUpdate(context, buffer, n)
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }
}
