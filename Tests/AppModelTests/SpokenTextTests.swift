@testable import PlainUI
import Testing

/// The plain mode speaks words: what a screen reader would misread is rewritten once, for every line.
struct SpokenTextTests {
    @Test(arguments: [
        ("7. Bangor — Ready · 2.0 MiB", "7. Bangor — Ready, 2.0 megabytes"),
        ("Portland → Bangor: 214 km · 2 h 01 min, arriving 14:05", "Portland to Bangor: 214 kilometres, 2 hours 1 minute, arriving 14:05"),
        ("1 h 00 min · 1 min · 45 min · 3 d 1 h", "1 hour 0 minutes, 1 minute, 45 minutes, 3 days 1 hour"),
        ("44.3512°N 68.2210°W", "44.3512 north 68.2210 west"),
        ("Ruler: 850 m, 3.2 mi, 900 ft; 512 B of 1,024 KiB; 1.5 GiB", "Ruler: 850 metres, 3.2 miles, 900 feet; 512 bytes of 1,024 kilobytes; 1.5 gigabytes"),
        ("Mini golf, Maine Miles Road", "Mini golf, Maine Miles Road"),
    ])
    func wordsForSigns(_ shown: String, _ spoken: String) {
        #expect(SpokenText.words(shown) == spoken)
    }
}
