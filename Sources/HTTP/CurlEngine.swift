import CCurl
import Foundation
import Synchronization

/// Runs every transfer of the process on one libcurl multi handle, on one thread: connections are
/// reused across requests, and no thread is parked per transfer. Other threads hand work over through
/// a locked queue and wake the loop with `curl_multi_wakeup`.
///
/// Safety of `@unchecked Sendable`: the multi handle is a C pointer libcurl's callbacks reach; it is
/// used on the engine thread only, and the hand-over queues are behind a mutex.
final class CurlEngine: @unchecked Sendable {
    static let shared = CurlEngine()

    private let multi: UnsafeMutableRawPointer
    /// Transfers handed over to start and to cancel.
    private let handOver = Mutex<(start: [CurlTransfer], cancel: [CurlTransfer])>(([], []))
    /// Running transfers by easy-handle address; touched only on the engine thread.
    private var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    private init() {
        // Started only for a transfer, which made sure libcurl is there (`CurlGlobal.isAvailable`).
        multi = mb_curl_multi_init()
        mb_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 8)
        let thread = Thread { [unowned self] in self.loop() }
        thread.name = "mapbook.http"
        thread.start()
    }

    func start(_ transfer: CurlTransfer) {
        handOver.withLock { $0.start.append(transfer) }
        mb_curl_multi_wakeup(multi)
    }

    func cancel(_ transfer: CurlTransfer) {
        transfer.cancel()
        handOver.withLock { $0.cancel.append(transfer) }
        mb_curl_multi_wakeup(multi)
    }

    private func loop() {
        while true {
            let (starting, cancelling) = handOver.withLock { queued -> ([CurlTransfer], [CurlTransfer]) in
                defer { queued = ([], []) }
                return (queued.start, queued.cancel)
            }
            for transfer in starting {
                if transfer.cancelled { transfer.complete(.failure(.cancelled)); continue }
                running[transfer.easy] = transfer
                mb_curl_multi_add_handle(multi, transfer.easy)
            }
            for transfer in cancelling where running.removeValue(forKey: transfer.easy) != nil {
                mb_curl_multi_remove_handle(multi, transfer.easy)
                transfer.complete(.failure(.cancelled))
            }

            var stillRunning: Int32 = 0
            mb_curl_multi_perform(multi, &stillRunning)
            var queued: Int32 = 0
            while let message = mb_curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let code = mb_msg_result(message)
                mb_curl_multi_remove_handle(multi, easy)
                running.removeValue(forKey: easy)?.finish(code)
            }
            // Idle costs nothing: with no transfers, sleep until woken.
            let timeout: Int32 = running.isEmpty ? 60_000 : 1_000
            mb_curl_multi_poll(multi, nil, 0, timeout, nil)
        }
    }
}
