import EventLoop
import Foundation

/// The background half of writing a download, on its own serial queue so that the transfer thread
/// only receives and writes: every few MiB the new part of the file is read back for the `written`
/// observer (checksums) and its pages are handed to the disk. Handing them over as they come makes
/// the fsync at the end nearly free; left to the end it took a third of a second per GiB.
///
/// Safety of `@unchecked Sendable`: `handedOver` is used by the transfer thread (inside libcurl's
/// write callback) only, `readFailed` by the serial queue only.
final class DownloadWriteback: @unchecked Sendable {
    private let fd: Int32
    private let observer: (@Sendable (UnsafeRawBufferPointer, Int64) -> Void)?
    private let queue = SerialQueue()
    /// Where the next hand-over starts. Transfer thread only.
    private var handedOver: Int64
    /// Set when a read-back fails: the observer then sees nothing more, and treats the rest as unseen.
    private var readFailed = false

    static let step: Int64 = 8 << 20
    private static let readSize = 1 << 20

    init(fd: Int32, from offset: Int64, observer: (@Sendable (UnsafeRawBufferPointer, Int64) -> Void)?) {
        self.fd = fd
        self.handedOver = offset
        self.observer = observer
    }

    /// The file is written up to `position`; hands over what has gathered once it is a step's worth.
    func written(upTo position: Int64) {
        guard position - handedOver >= Self.step else { return }
        handOver(upTo: position)
    }

    /// Hands over the rest and waits until everything handed over is done.
    func finish(at position: Int64) {
        if position > handedOver { handOver(upTo: position) }
        queue.sync()
    }

    private func handOver(upTo end: Int64) {
        let start = handedOver
        handedOver = end
        queue.async { [self] in
            if observer != nil { readBack(start, end) }
            // Starts writing the range's dirty pages without waiting for them.
            _ = posix_fadvise(fd, off_t(start), off_t(end - start), POSIX_FADV_DONTNEED)
        }
    }

    /// Queue only: reads `start..<end` from the file (still in the page cache) for the observer.
    private func readBack(_ start: Int64, _ end: Int64) {
        guard let observer, !readFailed else { return }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 4096)
        defer { buffer.deallocate() }
        var offset = start
        while offset < end {
            let count = pread(fd, buffer.baseAddress, Int(min(Int64(Self.readSize), end - offset)), off_t(offset))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                readFailed = true
                return
            }
            observer(UnsafeRawBufferPointer(rebasing: buffer[..<count]), offset)
            offset += Int64(count)
        }
    }
}
