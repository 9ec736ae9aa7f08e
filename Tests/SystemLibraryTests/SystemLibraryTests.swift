import CCurl
import CCurses
import CZlib
import Testing

/// The module maps and shims compile and link against the Debian libraries CI installs.
@Suite struct SystemLibraryTests {
    @Test func libcurlHasWhatTheClientNeeds() {
        let info = mb_curl_version_info(CURLVERSION_ELEVENTH)!.pointee
        #expect(info.version_num >= 0x074400, "curl_multi_poll and curl_multi_wakeup need libcurl 7.68")
        #expect(info.features & CURL_VERSION_LIBZ != 0, "gzip support")
    }

    @Test func zlibRoundTripsThroughTheShim() {
        var stream = z_stream()
        #expect(mb_inflate_init2(&stream, 15 + 32) == Z_OK)
        inflateEnd(&stream)
    }

    @Test func cursesWideCharacterAPIIsVisible() {
        #expect(MB_A_BOLD != MB_A_NORMAL)
        var cell = cchar_t()
        var text: [wchar_t] = [0x2800 + 0xFF, 0]  // a full braille cell
        #expect(setcchar(&cell, &text, MB_A_NORMAL, 0, nil) == OK)
    }
}
